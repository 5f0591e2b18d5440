#include "batchedsvdaccuracymodel.h"

#include <QColor>

#include <algorithm>
#include <cmath>

namespace spyglass::widgets {

namespace {
QString number(double x) { return std::isnan(x) ? QStringLiteral("—") : QString::number(x, 'g', 3); }

// max over matrices finite in both of max_k |sigma_k - ref_k| / ref_0: how far a backend's singular
// values are from the CPU reference's, relative to the largest.
double sigmaDistance(const app::BatchedSvdResult& result, const app::BatchedSvdResult& reference) {
    if (result.n != reference.n || result.m != reference.m || result.batch != reference.batch) return std::nan("");
    const qint64 count = std::min(result.detailCount, reference.detailCount);
    double worst = 0;
    bool any = false;
    for (qint64 b = 0; b < count; ++b) {
        if (result.status[b] == int(SvdStatus::NonFiniteInput) || reference.status[b] == int(SvdStatus::NonFiniteInput)) continue;
        const double* s = result.sigma.constData() + b * result.n;
        const double* r = reference.sigma.constData() + b * reference.n;
        const double scale = r[0] > 0 ? r[0] : 1.0;
        for (int k = 0; k < result.n; ++k) worst = std::max(worst, std::fabs(s[k] - r[k]) / scale);
        any = true;
    }
    return any ? worst : std::nan("");
}
} // namespace

BatchedSvdAccuracyModel::BatchedSvdAccuracyModel(QObject* parent)
    : RowTableModel(
          {{tr("Backend"), {}},
           {tr("Device"), {}},
           {tr("Compute\n[ms]"), tr("GPU: kernels (or the vendor call) by CUDA events, nothing else; CPU: the decomposition"), kAlignFigure},
           {tr("Set-up\n[ms]"), tr("GPU: device buffers, vendor handles and workspaces, made before the timed compute"), kAlignFigure},
           {tr("Total\n[ms]"), tr("With set-up and host-device copies"), kAlignFigure},
           {tr("‖A−UΣVᴴ‖\n/ ‖A‖"), tr("Largest relative reconstruction error (Frobenius), over the first matrices (see the summary)"), kAlignFigure},
           {tr("max\n|UᴴU−I|"), tr("Largest entry of U^H U - I"), kAlignFigure},
           {tr("max\n|VᴴV−I|"), tr("Largest entry of V^H V - I"), kAlignFigure},
           {tr("max|σ−σ_cpu|\n/ σ₁"),
            tr("Largest difference of the singular values from the CPU reference's, relative to the largest singular value"), kAlignFigure},
           {tr("Max\nsweeps"), tr("Most sweeps any matrix needed (cuSOLVER does not report it)"), kAlignFigure},
           {tr("Max\noff-norm"), tr("Largest off-orthogonality |a_i^H a_j| / (||a_i|| ||a_j||) met in the last sweep"), kAlignFigure},
           {tr("Not\nconv."), tr("Matrices still above the tolerance after the sweep limit"), kAlignFigure},
           {tr("NaN/\nInf"), tr("Matrices with NaN or Inf input"), kAlignFigure}},
          parent) {}

QString BatchedSvdAccuracyModel::backendName(const QString& backend) {
    if (backend == QLatin1String("cpu")) return tr("CPU reference");
    if (backend == QLatin1String("cuda")) return tr("Spyglass CUDA");
    if (backend == QLatin1String("cusolver")) return tr("cuSOLVER gesvdj");
    if (backend == QLatin1String("cusolver-gesvda")) return tr("cuSOLVER gesvda");
    return backend;
}

QString BatchedSvdAccuracyModel::text(const app::BatchedSvdResult& result, int row, int column) const {
    switch (column) {
    case BackendColumn: return backendName(result.backend);
    case DeviceColumn: return result.device;
    case ComputeColumn: return QString::number(result.computeMs, 'f', 3);
    case SetupColumn: return QString::number(result.setupMs, 'f', 3);
    case TotalColumn: return QString::number(result.totalMs, 'f', 3);
    case ReconstructionColumn:
        return number(result.reconstruction) +
               (result.accuracySampled < result.batch ? tr(" (first %1)").arg(result.accuracySampled) : QString());
    case UOrthogonalityColumn: return number(result.uOrthogonality);
    case VOrthogonalityColumn: return number(result.vOrthogonality);
    case SigmaVsCpuColumn: {
        if (result.backend == QLatin1String("cpu")) return QStringLiteral("(reference)");
        // Against the CPU reference's row when it finished before this one.
        double vsCpu = std::nan("");
        for (int r = 0; r <= row; ++r)
            if (rowAt(r).backend == QLatin1String("cpu")) vsCpu = sigmaDistance(result, rowAt(r));
        return number(vsCpu);
    }
    case SweepsColumn: return result.sweepsReported ? QString::number(result.maxSweepsUsed) : QStringLiteral("—");
    case OffColumn: return number(result.maxOffOrthogonality);
    case NotConvergedColumn: return QString::number(result.notConvergedCount);
    case NonFiniteColumn: return QString::number(result.nonFiniteCount);
    }
    return {};
}

QVariant BatchedSvdAccuracyModel::cell(const app::BatchedSvdResult& result, const QModelIndex& index, int role) const {
    switch (role) {
    case Qt::DisplayRole: return text(result, index.row(), index.column());
    case Qt::ToolTipRole:  // GPU names are long: the device column elides
        return index.column() == DeviceColumn ? QVariant(result.device) : QVariant();
    case Qt::ForegroundRole:
        if ((index.column() == NotConvergedColumn && result.notConvergedCount > 0) ||
            (index.column() == NonFiniteColumn && result.nonFiniteCount > 0))
            return QColor(176, 0, 32);
        return {};
    default: return {};
    }
}

} // namespace spyglass::widgets
