#pragma once
// M[P[i] … P[i+1]) of one line of a bit-flag form: each stored value's index into M, its position
// in the line (column of a row, row of a column) and the value. A dense line of a wide matrix has as
// many values as columns: past kMaxRows a last row says how many more there are.
#include "spyglass/bitflag.h"

#include <QAbstractTableModel>
#include <QVector>

#include <memory>
#include <optional>

namespace spyglass::widgets {

class BitFlagValuesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { MIndex, Position, Value, ColumnCount };
    static constexpr int kMaxRows = 5000;

    explicit BitFlagValuesModel(QObject* parent = nullptr);
    // `positions`: the set positions of `line`, in order (as the strip shows them).
    void setLine(std::shared_ptr<const BitFlagMatrix<double>> format, Index line, const QVector<Index>& positions);
    void clear();
    // The position (column or row) a table row stands for; none for the "… more" row.
    std::optional<Index> positionAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    int shown() const { return std::min<int>(int(m_positions.size()), kMaxRows); }

    std::shared_ptr<const BitFlagMatrix<double>> m_format;
    Count m_begin = 0;  // P[line]
    QVector<Index> m_positions;
};

} // namespace spyglass::widgets
