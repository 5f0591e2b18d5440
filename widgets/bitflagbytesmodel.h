#pragma once
// The bytes of an encoded bit-flag form against CSR, array by array (M | values, F | column
// indices, P | row pointers, prefix counts), then the totals in bold. Empty until a layout is set.
#include "core/bitflagjob.h"

#include <QAbstractTableModel>
#include <QVector>

namespace spyglass::widgets {

class BitFlagBytesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Array, BitFlag, Csr, ColumnCount };

    explicit BitFlagBytesModel(QObject* parent = nullptr);
    void setLayout(const app::BitFlagLayout& layout);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString name;
        double bitFlag = 0, csr = 0;
        bool hasCsr = true;  // prefix counts have no CSR counterpart
    };
    QVector<Row> m_rows;
};

} // namespace spyglass::widgets
