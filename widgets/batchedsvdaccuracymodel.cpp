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

BatchedSvdAccuracyModel::BatchedSvdAccuracyModel(QObject* parent) : QAbstractTableModel(parent) {}

QString BatchedSvdAccuracyModel::backendName(const QString& backend) {
    if (backend == QLatin1String("cpu")) return tr("CPU reference");
    if (backend == QLatin1String("cuda")) return tr("Spyglass CUDA");
    if (backend == QLatin1String("cusolver")) return tr("cuSOLVER gesvdj");
    if (backend == QLatin1String("cusolver-gesvda")) return tr("cuSOLVER gesvda");
    return backend;
}

void BatchedSvdAccuracyModel::append(const app::BatchedSvdResult& result) {
    beginInsertRows({}, int(m_results.size()), int(m_results.size()));
    m_results.append(result);
    endInsertRows();
}

void BatchedSvdAccuracyModel::clear() {
    beginResetModel();
    m_results.clear();
    endResetModel();
}

int BatchedSvdAccuracyModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_results.size()); }
int BatchedSvdAccuracyModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString BatchedSvdAccuracyModel::text(int row, int column) const {
    const app::BatchedSvdResult& result = m_results[row];
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
            if (m_results[r].backend == QLatin1String("cpu")) vsCpu = sigmaDistance(result, m_results[r]);
        return number(vsCpu);
    }
    case SweepsColumn: return result.sweepsReported ? QString::number(result.maxSweepsUsed) : QStringLiteral("—");
    case OffColumn: return number(result.maxOffOrthogonality);
    case NotConvergedColumn: return QString::number(result.notConvergedCount);
    case NonFiniteColumn: return QString::number(result.nonFiniteCount);
    }
    return {};
}

QVariant BatchedSvdAccuracyModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const app::BatchedSvdResult& result = m_results[index.row()];
    switch (role) {
    case Qt::DisplayRole: return text(index.row(), index.column());
    case Qt::ToolTipRole:  // GPU names are long: the device column elides
        return index.column() == DeviceColumn ? QVariant(result.device) : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() >= ComputeColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ForegroundRole:
        if ((index.column() == NotConvergedColumn && result.notConvergedCount > 0) ||
            (index.column() == NonFiniteColumn && result.nonFiniteCount > 0))
            return QColor(176, 0, 32);
        return {};
    default: return {};
    }
}

QVariant BatchedSvdAccuracyModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        switch (section) {
        case BackendColumn: return tr("Backend");
        case DeviceColumn: return tr("Device");
        case ComputeColumn: return tr("Compute\n[ms]");
        case SetupColumn: return tr("Set-up\n[ms]");
        case TotalColumn: return tr("Total\n[ms]");
        case ReconstructionColumn: return tr("‖A−UΣVᴴ‖\n/ ‖A‖");
        case UOrthogonalityColumn: return tr("max\n|UᴴU−I|");
        case VOrthogonalityColumn: return tr("max\n|VᴴV−I|");
        case SigmaVsCpuColumn: return tr("max|σ−σ_cpu|\n/ σ₁");
        case SweepsColumn: return tr("Max\nsweeps");
        case OffColumn: return tr("Max\noff-norm");
        case NotConvergedColumn: return tr("Not\nconv.");
        case NonFiniteColumn: return tr("NaN/\nInf");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case ComputeColumn: return tr("GPU: kernels (or the vendor call) by CUDA events, nothing else; CPU: the decomposition");
        case SetupColumn: return tr("GPU: device buffers, vendor handles and workspaces, made before the timed compute");
        case TotalColumn: return tr("With set-up and host-device copies");
        case ReconstructionColumn: return tr("Largest relative reconstruction error (Frobenius), over the first matrices (see the summary)");
        case UOrthogonalityColumn: return tr("Largest entry of U^H U - I");
        case VOrthogonalityColumn: return tr("Largest entry of V^H V - I");
        case SigmaVsCpuColumn:
            return tr("Largest difference of the singular values from the CPU reference's, relative to the largest singular value");
        case SweepsColumn: return tr("Most sweeps any matrix needed (cuSOLVER does not report it)");
        case OffColumn: return tr("Largest off-orthogonality |a_i^H a_j| / (||a_i|| ||a_j||) met in the last sweep");
        case NotConvergedColumn: return tr("Matrices still above the tolerance after the sweep limit");
        case NonFiniteColumn: return tr("Matrices with NaN or Inf input");
        }
    }
    return QAbstractTableModel::headerData(section, orientation, role);
}

} // namespace spyglass::widgets
