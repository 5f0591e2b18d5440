#include "bitflagvaluesmodel.h"

#include <utility>

namespace spyglass::widgets {

BitFlagValuesModel::BitFlagValuesModel(QObject* parent) : QAbstractTableModel(parent) {}

void BitFlagValuesModel::setLine(std::shared_ptr<const BitFlagMatrix<double>> format, Index line, const QVector<Index>& positions) {
    const bool orderChanged = !m_format || !format || m_format->order != format->order;
    beginResetModel();
    m_format = std::move(format);
    m_begin = m_format ? m_format->lineStart[std::size_t(line)] : 0;
    m_positions = m_format ? positions : QVector<Index>();
    endResetModel();
    if (orderChanged) emit headerDataChanged(Qt::Horizontal, Position, Position);
}

void BitFlagValuesModel::clear() { setLine(nullptr, 0, {}); }

std::optional<Index> BitFlagValuesModel::positionAt(int row) const {
    if (row < 0 || row >= shown()) return std::nullopt;
    return m_positions[row];
}

int BitFlagValuesModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return shown() + (m_positions.size() > shown() ? 1 : 0);
}

int BitFlagValuesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant BitFlagValuesModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const bool moreRow = index.row() >= shown();
    if (role == Qt::TextAlignmentRole)
        return moreRow && index.column() == MIndex ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    if (moreRow) return index.column() == MIndex ? tr("… %1 more").arg(m_positions.size() - shown()) : QString();
    switch (index.column()) {
    case MIndex: return QString::number(m_begin + index.row());
    case Position: return QString::number(m_positions[index.row()]);
    case Value: return QString::number(m_format->values[std::size_t(m_begin + index.row())], 'g', 8);
    }
    return {};
}

QVariant BitFlagValuesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case MIndex: return tr("M index");
    case Position: return m_format && m_format->order == BitFlagOrder::ColumnMajor ? tr("Row") : tr("Column");
    case Value: return tr("Value");
    }
    return {};
}

} // namespace spyglass::widgets
