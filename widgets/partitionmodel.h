#pragma once
// The row partitions of a plan as a table: one row per partition (its rows, bytes, the span of x it
// reads and what it receives per iteration under the plan's exchange).
#include "spyglass/multigpu.h"

#include <QAbstractTableModel>

namespace spyglass::widgets {

class PartitionModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Part, Rows, RowRange, Megabytes, XSpan, Receives, ColumnCount };

    explicit PartitionModel(QObject* parent = nullptr);
    void setPlan(const PartitionPlan& plan);
    void clear();
    const PartitionPlan& plan() const { return m_plan; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    PartitionPlan m_plan;
};

} // namespace spyglass::widgets
