#include "bitflagbytesmodel.h"

#include "byteformat.h"

#include <QFont>

namespace spyglass::widgets {

BitFlagBytesModel::BitFlagBytesModel(QObject* parent) : QAbstractTableModel(parent) {}

void BitFlagBytesModel::setLayout(const app::BitFlagLayout& layout) {
    beginResetModel();
    m_rows.clear();
    if (layout.format) {
        const BitFlagMatrix<double>& m = *layout.format;
        const BitFlagStats& s = layout.stats;
        const double values = double(m.nonzeros) * sizeof(double);
        const double csrIndex = double(m.nonzeros) * sizeof(Index), csrPointers = (double(m.rows) + 1) * sizeof(Count);
        const double lineStarts = double(m.lineStart.size()) * sizeof(Count);
        m_rows = {
            {tr("M | values"), values, values, true},
            {tr("F | column indices"), double(s.flagBytes), csrIndex, true},
            {tr("P | row pointers"), lineStarts, csrPointers, true},
            {tr("Prefix counts"), double(s.prefixBytes), 0, false},
            {tr("Total"), double(s.bitFlagBytes), double(s.csrBytes), true},
        };
    }
    endResetModel();
}

void BitFlagBytesModel::clear() {
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

int BitFlagBytesModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }
int BitFlagBytesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant BitFlagBytesModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const Row& row = m_rows[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Array: return row.name;
        case BitFlag: return formatBytes(row.bitFlag);
        case Csr: return row.hasCsr ? formatBytes(row.csr) : QStringLiteral("—");
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == Array ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
        if (index.row() == m_rows.size() - 1) {  // the totals
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    default: return {};
    }
}

QVariant BitFlagBytesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Array: return tr("Array");
    case BitFlag: return tr("Bit-flag");
    case Csr: return tr("CSR");
    }
    return {};
}

} // namespace spyglass::widgets
