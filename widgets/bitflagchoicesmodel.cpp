#include "bitflagchoicesmodel.h"

#include "byteformat.h"

#include <QColor>
#include <QFont>

namespace spyglass::widgets {

BitFlagChoicesModel::BitFlagChoicesModel(QObject* parent) : QAbstractTableModel(parent) {}

void BitFlagChoicesModel::setChoices(const QVector<app::BitFlagBytes>& choices, double csrBytes, std::optional<Current> current) {
    beginResetModel();
    m_choices = choices;
    m_csrBytes = csrBytes;
    m_current = current;
    endResetModel();
}

void BitFlagChoicesModel::clear() { setChoices({}, 0, std::nullopt); }

int BitFlagChoicesModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_choices.size()); }
int BitFlagChoicesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant BitFlagChoicesModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const app::BitFlagBytes& c = m_choices[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Storage: return QString::fromLatin1(toString(c.order)) + (c.prefixCounts ? tr(" + prefix") : QString());
        case Bytes: return formatBytes(c.total());
        case WinsAbove: return formatPercent(c.breakEvenDensity);
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == Storage ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::BackgroundRole: return c.total() < m_csrBytes ? QColor(215, 240, 215) : QColor(250, 225, 220);
    case Qt::FontRole:
        if (m_current && m_current->order == c.order && m_current->prefixCounts == c.prefixCounts) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    default: return {};
    }
}

QVariant BitFlagChoicesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Storage: return tr("Storage");
    case Bytes: return tr("Bytes");
    case WinsAbove: return tr("Wins above");
    }
    return {};
}

} // namespace spyglass::widgets
