#include "bitflagbytesmodel.h"

#include "byteformat.h"


namespace spyglass::widgets {

BitFlagBytesModel::BitFlagBytesModel(QObject* parent)
    : RowTableModel({textColumn(tr("Array")), figureColumn(tr("Bit-flag")), figureColumn(tr("CSR"))}, parent) {}

void BitFlagBytesModel::setLayout(const app::BitFlagLayout& layout) {
    if (!layout.format) {
        setRows({});
        return;
    }
    const BitFlagMatrix<double>& m = *layout.format;
    const BitFlagStats& s = layout.stats;
    const double values = double(m.nonzeros) * sizeof(double);
    const double csrIndex = double(m.nonzeros) * sizeof(Index), csrPointers = (double(m.rows) + 1) * sizeof(Count);
    const double lineStarts = double(m.lineStart.size()) * sizeof(Count);
    setRows({
        {tr("M | values"), values, values, true},
        {tr("F | column indices"), double(s.flagBytes), csrIndex, true},
        {tr("P | row pointers"), lineStarts, csrPointers, true},
        {tr("Prefix counts"), double(s.prefixBytes), 0, false},
        {tr("Total"), double(s.bitFlagBytes), double(s.csrBytes), true},
    });
}

QVariant BitFlagBytesModel::cell(const BitFlagArrayBytes& row, const QModelIndex& index, int role) const {
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Array: return row.name;
        case BitFlag: return formatBytes(row.bitFlag);
        case Csr: return row.hasCsr ? formatBytes(row.csr) : QStringLiteral("—");
        }
        return {};
    case Qt::FontRole:
        return index.row() == rowCount() - 1 ? QVariant(boldFont()) : QVariant();  // the totals
    default: return {};
    }
}

} // namespace spyglass::widgets
