#include "bitflagvaluesmodel.h"

#include <algorithm>
#include <utility>

namespace spyglass::widgets {

BitFlagValuesModel::BitFlagValuesModel(QObject* parent)
    : RowTableModel({figureColumn(tr("M index")), figureColumn(tr("Column")), figureColumn(tr("Value"))}, parent) {}

void BitFlagValuesModel::setLine(std::shared_ptr<const BitFlagMatrix<double>> format, Index line, const QVector<Index>& positions) {
    const bool orderChanged = !m_format || !format || m_format->order != format->order;
    std::vector<std::optional<Index>> rows;
    if (format) {
        const qsizetype shown = std::min<qsizetype>(positions.size(), kMaxRows);
        rows.assign(positions.begin(), positions.begin() + shown);
        if (positions.size() > shown) rows.push_back(std::nullopt);
    }
    setRows(std::move(rows), [&] {
        m_more = format ? positions.size() - std::min<qsizetype>(positions.size(), kMaxRows) : 0;
        m_begin = format ? format->lineStart[std::size_t(line)] : 0;
        m_format = std::move(format);
        setColumnTitle(Position, m_format && m_format->order == BitFlagOrder::ColumnMajor ? tr("Row") : tr("Column"));
    });
    if (orderChanged) emit headerDataChanged(Qt::Horizontal, Position, Position);
}

void BitFlagValuesModel::clear() { setLine(nullptr, 0, {}); }

std::optional<Index> BitFlagValuesModel::positionAt(int row) const {
    if (row < 0 || row >= rowCount()) return std::nullopt;
    return rowAt(row);
}

QVariant BitFlagValuesModel::cell(const std::optional<Index>& position, const QModelIndex& index, int role) const {
    if (role == Qt::TextAlignmentRole && !position && index.column() == MIndex) return QVariant(kAlignText);
    if (role != Qt::DisplayRole) return {};
    if (!position) return index.column() == MIndex ? tr("… %1 more").arg(m_more) : QString();
    switch (index.column()) {
    case MIndex: return QString::number(m_begin + index.row());
    case Position: return QString::number(*position);
    case Value: return QString::number(m_format->values[std::size_t(m_begin + index.row())], 'g', 8);
    }
    return {};
}

} // namespace spyglass::widgets
