#pragma once
// The rows of a format comparison as a table model: one row per format, the columns of
// spyglass-cli compare. Rows that did not run show their reason in the last column; the picked row
// is bold. A tooltip carries each row's full text (the view elides, so the window never widens).
#include "rowtablemodel.h"
#include "core/formatcomparisonjob.h"

namespace spyglass::widgets {

class FormatComparisonModel : public RowTableModel<FormatRow> {
    Q_OBJECT
public:
    enum Column { Format, Backend, Median, VsCsr, Bandwidth, CopyFraction, Bytes, Padding, Build, Upload, Cold, Result, Note, ColumnCount };

    explicit FormatComparisonModel(QObject* parent = nullptr);

    void setComparison(const FormatComparison& comparison);
    void clear() override { setComparison({}); }
    const FormatComparison& comparison() const { return m_comparison; }
    // The format of a table row (for "open its tab").
    SpmvFormat formatAt(int row) const { return rowAt(row).format; }

private:
    QVariant cell(const FormatRow& row, const QModelIndex& index, int role) const override;
    QString text(const FormatRow& row, int column) const;

    FormatComparison m_comparison;
};

} // namespace spyglass::widgets
