#include "segdiasegmentsmodel.h"

#include <QStringList>

#include <algorithm>

namespace spyglass::widgets {

SegDiaSegmentsModel::SegDiaSegmentsModel(QObject* parent) : QAbstractTableModel(parent) {}

QColor SegDiaSegmentsModel::blockColor(int block) {
    static const QColor palette[] = {QColor(230, 120, 20), QColor(40, 150, 90), QColor(150, 60, 200),
                                     QColor(200, 40, 90), QColor(30, 130, 200), QColor(160, 140, 20)};
    return palette[block % 6];
}

void SegDiaSegmentsModel::setLayout(const app::SegmentedDiaLayout& layout) {
    beginResetModel();
    m_format = layout.format;
    m_segmentBlock = layout.segmentBlock;
    endResetModel();
}

void SegDiaSegmentsModel::clear() { setLayout({}); }

int SegDiaSegmentsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_format ? 0 : std::min<int>(m_format->segments(), kMaxRows);
}

int SegDiaSegmentsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SegDiaSegmentsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const SegmentedDiaMatrix<double>& format = *m_format;
    const int seg = index.row();
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

QVariant SegDiaSegmentsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Rows: return tr("Rows");
    case Diagonals: return tr("Diagonals");
    case Operands: return tr("Operands");
    case Block: return tr("Block");
    case Offsets: return tr("Offsets");
    }
    return {};
}

} // namespace spyglass::widgets
