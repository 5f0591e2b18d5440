#include "segdiasegmentsmodel.h"

#include <QStringList>

#include <algorithm>
#include <numeric>

namespace spyglass::widgets {

SegDiaSegmentsModel::SegDiaSegmentsModel(QObject* parent)
    : RowTableModel({{tr("Rows")}, {tr("Diagonals")}, {tr("Operands")}, {tr("Block")}, {tr("Offsets")}}, parent) {}

QColor SegDiaSegmentsModel::blockColor(int block) {
    static const QColor palette[] = {QColor(230, 120, 20), QColor(40, 150, 90), QColor(150, 60, 200),
                                     QColor(200, 40, 90), QColor(30, 130, 200), QColor(160, 140, 20)};
    return palette[block % 6];
}

void SegDiaSegmentsModel::setLayout(const app::SegmentedDiaLayout& layout) {
    std::vector<int> segments(layout.format ? std::size_t(std::min<int>(layout.format->segments(), kMaxRows)) : 0);
    std::iota(segments.begin(), segments.end(), 0);
    setRows(std::move(segments), [&] {
        m_format = layout.format;
        m_segmentBlock = layout.segmentBlock;
    });
}

QVariant SegDiaSegmentsModel::cell(const int& seg, const QModelIndex& index, int role) const {
    const SegmentedDiaMatrix<double>& format = *m_format;
    const int block = m_segmentBlock.value(seg);
    if (role == Qt::BackgroundRole) return index.column() == Rows ? QVariant(blockColor(block).lighter(170)) : QVariant();
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Rows: return QStringLiteral("%1–%2").arg(format.segmentFirstRow[seg] + 1).arg(format.segmentFirstRow[seg + 1]);
    case Diagonals: return QString::number(format.segmentDiagonals(seg));
    case Operands: return QString::number(format.segmentWork(seg));
    case Block: return QString::number(block);
    case Offsets: {
        QStringList offsets;
        for (Count k = format.segmentOffsetStart[seg]; k < format.segmentOffsetStart[seg + 1] && offsets.size() < 40; ++k)
            offsets << QString::number(format.offsets[k]);
        if (format.segmentDiagonals(seg) > 40) offsets << QStringLiteral("…");
        return offsets.join(QLatin1Char(' '));
    }
    }
    return {};
}

} // namespace spyglass::widgets
