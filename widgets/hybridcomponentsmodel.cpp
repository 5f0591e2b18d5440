#include "hybridcomponentsmodel.h"

#include "hybriddetectionlayers.h"

#include <algorithm>
#include <utility>

namespace spyglass::widgets {

HybridComponentsModel::HybridComponentsModel(QObject* parent) : QAbstractTableModel(parent) {}

void HybridComponentsModel::setPicture(std::shared_ptr<const DetectionPicture> picture) {
    beginResetModel();
    m_picture = std::move(picture);
    endResetModel();
}

void HybridComponentsModel::clear() { setPicture(nullptr); }

int HybridComponentsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_picture ? 0 : std::min<int>(int(m_picture->components.size()), kMaxRows);
}

int HybridComponentsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant HybridComponentsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const ComponentInfo& c = m_picture->components[std::size_t(index.row())];
    const qint64 cpp = m_picture->cellsPerPixel;
    switch (role) {
    case Qt::ToolTipRole: return componentDetails(c, m_picture->cellsPerPixel);
    case Qt::BackgroundRole: return index.column() == Label ? QVariant(componentColor(c)) : QVariant();
    case Qt::DisplayRole:
        switch (index.column()) {
        case Label: return QString::number(c.label);
        case Verdict: return QString::fromLatin1(toString(c.verdict));
        case Why: return QString::fromStdString(c.reason);
        case Pixels: return QString::number(c.area);
        case Extent:
            return QStringLiteral("%1–%2 × %3–%4")
                .arg(c.y * cpp + 1).arg((c.y + c.height) * cpp)
                .arg(c.x * cpp + 1).arg((c.x + c.width) * cpp);
        }
        return {};
    default: return {};
    }
}

QVariant HybridComponentsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Label: return tr("Component");
    case Verdict: return tr("Verdict");
    case Why: return tr("Why");
    case Pixels: return tr("Pixels");
    case Extent: return tr("Rows × columns");
    }
    return {};
}

} // namespace spyglass::widgets
