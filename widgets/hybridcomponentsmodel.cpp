#include "hybridcomponentsmodel.h"

#include "hybriddetectionlayers.h"

#include <algorithm>

namespace spyglass::widgets {

HybridComponentsModel::HybridComponentsModel(QObject* parent)
    : RowTableModel({{tr("Component")}, {tr("Verdict")}, {tr("Why")}, {tr("Pixels")}, {tr("Rows × columns")}}, parent) {}

void HybridComponentsModel::setPicture(std::shared_ptr<const DetectionPicture> picture) {
    if (!picture) {
        setRows({});
        return;
    }
    const std::vector<ComponentInfo>& components = picture->components;
    const std::size_t shown = std::min<std::size_t>(components.size(), kMaxRows);
    setRows({components.begin(), components.begin() + std::ptrdiff_t(shown)}, [&] { m_cellsPerPixel = picture->cellsPerPixel; });
}

QVariant HybridComponentsModel::cell(const ComponentInfo& c, const QModelIndex& index, int role) const {
    const qint64 cpp = m_cellsPerPixel;
    switch (role) {
    case Qt::ToolTipRole: return componentDetails(c, cpp);
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

} // namespace spyglass::widgets
