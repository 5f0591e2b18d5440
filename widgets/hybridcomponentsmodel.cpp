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
    setRows(listedComponents(*picture, kMaxRows), [&] { m_cellsPerPixel = picture->cellsPerPixel; });
}

QVariant HybridComponentsModel::cell(const ComponentInfo& c, const QModelIndex& index, int role) const {
    const qint64 cpp = m_cellsPerPixel;
    switch (role) {
    case Qt::ToolTipRole: return componentDetails(c, cpp);
    case Qt::BackgroundRole: return index.column() == Label ? QVariant(componentColor(c)) : QVariant();
    case SortRole:
        // Numbers sort as numbers; the verdict column sorts kept first, then by size.
        switch (index.column()) {
        case Label: return qint64(c.label);
        case Verdict: return qint64(c.verdict) * (qint64(1) << 40) - qint64(c.area);
        case Why: return QString::fromStdString(c.reason);
        case Pixels: return qint64(c.area);
        case Extent: return qint64(c.y) * (qint64(1) << 32) + c.x;
        }
        return {};
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
