#pragma once
// One row per batched-SVD backend that finished, in the order they finished: where it ran, its
// times, its accuracy (reconstruction, orthogonality of U and V, singular values against the CPU
// reference's when that ran before it), sweeps, and the matrices that did not converge or had
// NaN/Inf input (red when there are any). Header tooltips say how each figure is measured.
#include "core/batchedsvdjob.h"

#include <QAbstractTableModel>
#include <QVector>

namespace spyglass::widgets {

class BatchedSvdAccuracyModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        BackendColumn, DeviceColumn, ComputeColumn, SetupColumn, TotalColumn, ReconstructionColumn, UOrthogonalityColumn,
        VOrthogonalityColumn, SigmaVsCpuColumn, SweepsColumn, OffColumn, NotConvergedColumn, NonFiniteColumn,
        ColumnCount
    };

    explicit BatchedSvdAccuracyModel(QObject* parent = nullptr);
    void append(const app::BatchedSvdResult& result);
    void clear();

    // "CPU reference", "Spyglass CUDA", "cuSOLVER gesvdj" ... for a result's backend key.
    static QString backendName(const QString& backend);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString text(int row, int column) const;

    QVector<app::BatchedSvdResult> m_results;
};

} // namespace spyglass::widgets
