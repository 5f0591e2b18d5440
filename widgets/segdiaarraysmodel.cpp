#include "segdiaarraysmodel.h"

#include <QColor>

#include <algorithm>
#include <utility>

namespace spyglass::widgets {

SegDiaArraysModel::SegDiaArraysModel(QObject* parent) : QAbstractTableModel(parent) {}

void SegDiaArraysModel::setSegment(std::shared_ptr<const SegmentedDiaMatrix<double>> format, int segment) {
    beginResetModel();
    const bool valid = format && segment >= 0 && segment < format->segments();
    m_format = valid ? std::move(format) : nullptr;
    m_segment = valid ? segment : -1;
    m_rows = valid ? std::min<int>(m_format->segmentRows(segment), kMaxRows) : 0;
    m_diagonals = valid ? std::min<int>(m_format->segmentDiagonals(segment), kMaxDiagonals) : 0;
    endResetModel();
}

void SegDiaArraysModel::clear() { setSegment(nullptr, -1); }

int SegDiaArraysModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : m_rows; }
int SegDiaArraysModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : m_diagonals; }

QVariant SegDiaArraysModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows || index.column() >= m_diagonals) return {};
    if (role != Qt::DisplayRole && role != Qt::BackgroundRole) return {};
    const SegmentedDiaMatrix<double>& format = *m_format;
    const int i = index.row(), d = index.column();
    const double value = format.values[format.segmentValueStart[m_segment] + Count(d) * format.segmentRows(m_segment) + i];
    if (role == Qt::DisplayRole) return QString::number(value, 'g', 6);
    // A stored zero is padding (explicit zeros are not kept by the format); outside the matrix the
    // slot can never hold an entry.
    const Index col = format.segmentFirstRow[m_segment] + i + format.offsets[format.segmentOffsetStart[m_segment] + d];
    if (value == 0.0 || col < 0 || col >= format.cols) return QColor(225, 225, 225);
    return {};
}

QVariant SegDiaArraysModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole || !m_format) return QAbstractTableModel::headerData(section, orientation, role);
    if (orientation == Qt::Horizontal)
        return section >= 0 && section < m_diagonals ? QVariant(QString::number(m_format->offsets[m_format->segmentOffsetStart[m_segment] + section]))
                                                     : QVariant();
    return section >= 0 && section < m_rows ? QVariant(QString::number(m_format->segmentFirstRow[m_segment] + section + 1)) : QVariant();
}

} // namespace spyglass::widgets
