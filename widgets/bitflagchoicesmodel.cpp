#include "bitflagchoicesmodel.h"

#include "byteformat.h"

#include <QColor>

namespace spyglass::widgets {

BitFlagChoicesModel::BitFlagChoicesModel(QObject* parent)
    : RowTableModel({textColumn(tr("Storage")), figureColumn(tr("Bytes")), figureColumn(tr("Wins above"))}, parent) {}

void BitFlagChoicesModel::setChoices(const QVector<app::BitFlagBytes>& choices, double csrBytes, std::optional<Current> current) {
    setRows({choices.begin(), choices.end()}, [&] {
        m_csrBytes = csrBytes;
        m_current = current;
    });
}

QVariant BitFlagChoicesModel::cell(const app::BitFlagBytes& c, const QModelIndex& index, int role) const {
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Storage: return QString::fromLatin1(toString(c.order)) + (c.prefixCounts ? tr(" + prefix") : QString());
        case Bytes: return formatBytes(c.total());
        case WinsAbove: return formatPercent(c.breakEvenDensity);
        }
        return {};
    case Qt::BackgroundRole: return c.total() < m_csrBytes ? QColor(215, 240, 215) : QColor(250, 225, 220);
    case Qt::FontRole:
        return m_current && m_current->order == c.order && m_current->prefixCounts == c.prefixCounts ? QVariant(boldFont()) : QVariant();
    default: return {};
    }
}

} // namespace spyglass::widgets
