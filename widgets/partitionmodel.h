#pragma once
// The row partitions of a plan as a table: one row per partition (its rows, bytes, the span of x it
// reads and what it receives per iteration under the plan's exchange).
#include "rowtablemodel.h"
#include "core/scaleplan.h"

namespace spyglass::widgets {

class PartitionModel : public RowTableModel<RowPartition> {
    Q_OBJECT
public:
    enum Column { Part, Rows, RowRange, Megabytes, XSpan, Receives, ColumnCount };

    explicit PartitionModel(QObject* parent = nullptr);
    void setPlan(const PartitionPlan& plan);
    void clear() override { setPlan({}); }
    const PartitionPlan& plan() const { return m_plan; }

private:
    QVariant cell(const RowPartition& p, const QModelIndex& index, int role) const override;

    PartitionPlan m_plan;
};

} // namespace spyglass::widgets
