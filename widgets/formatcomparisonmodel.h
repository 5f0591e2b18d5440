#pragma once
// The rows of a format comparison as a table model: one row per format, the columns of
// spyglass-cli compare. Rows that did not run show their reason in the last column; the picked row
// is bold. A tooltip carries each row's full text (the view elides, so the window never widens).
#include "spyglass/formatcomparison.h"

#include <QAbstractTableModel>

namespace spyglass::widgets {

class FormatComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Format, Backend, Median, VsCsr, Bandwidth, CopyFraction, Bytes, Padding, Build, Upload, Result, Note, ColumnCount };

    explicit FormatComparisonModel(QObject* parent = nullptr);

    void setComparison(const FormatComparison& comparison);
    void clear();
    const FormatComparison& comparison() const { return m_comparison; }
    // The format of a table row (for "open its tab").
    SpmvFormat formatAt(int row) const { return m_comparison.results[std::size_t(row)].format; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString text(const FormatRow& row, int column) const;

    FormatComparison m_comparison;
};

} // namespace spyglass::widgets
