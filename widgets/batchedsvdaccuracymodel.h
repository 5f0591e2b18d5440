#pragma once
// One row per batched-SVD backend that finished, in the order they finished: where it ran, its
// times, its accuracy (reconstruction, orthogonality of U and V, singular values against the CPU
// reference's when that ran before it), sweeps, and the matrices that did not converge or had
// NaN/Inf input (red when there are any). Header tooltips say how each figure is measured.
#include "core/batchedsvdjob.h"
#include "rowtablemodel.h"

namespace spyglass::widgets {

class BatchedSvdAccuracyModel : public RowTableModel<app::BatchedSvdResult> {
    Q_OBJECT
public:
    enum Column {
        BackendColumn, DeviceColumn, ComputeColumn, SetupColumn, TotalColumn, ReconstructionColumn, UOrthogonalityColumn,
        VOrthogonalityColumn, SigmaVsCpuColumn, SweepsColumn, OffColumn, NotConvergedColumn, NonFiniteColumn,
        ColumnCount
    };

    explicit BatchedSvdAccuracyModel(QObject* parent = nullptr);
    void append(const app::BatchedSvdResult& result) { appendRow(result); }

    // "CPU reference", "Spyglass CUDA", "cuSOLVER gesvdj" ... for a result's backend key.
    static QString backendName(const QString& backend);

private:
    QVariant cell(const app::BatchedSvdResult& result, const QModelIndex& index, int role) const override;
    QString text(const app::BatchedSvdResult& result, int row, int column) const;
};

} // namespace spyglass::widgets
