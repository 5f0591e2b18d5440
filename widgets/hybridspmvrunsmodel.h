#pragma once
// The backends of one hybrid SpMV run: upload, median and range of the warm runs, and the check
// against the reference (equal for a binary encoding, within rounding for a valued one). A backend
// that could not run says why in the Check column.
#include "core/hybridspmvjob.h"
#include "rowtablemodel.h"

namespace spyglass::widgets {

class HybridSpmvRunsModel : public RowTableModel<app::HybridSpmvRun> {
    Q_OBJECT
public:
    enum Column { Backend, Upload, Median, Bandwidth, Check, ColumnCount };

    explicit HybridSpmvRunsModel(QObject* parent = nullptr);
    void setResult(const app::HybridSpmvResult& result);

private:
    QVariant cell(const app::HybridSpmvRun& run, const QModelIndex& index, int role) const override;
    QString text(const app::HybridSpmvRun& run, int column) const;

    bool m_valued = false;  // a valued encoding: checked within rounding, not for equality
};

} // namespace spyglass::widgets
