#pragma once
// The stored arrays of one segment of a segmented-DIA layout, diagonal-major as the format keeps
// them: a column per diagonal (headed by its offset col − row), a row per matrix row (1-based), grey
// where a slot is padding. Only the first kMaxRows rows and kMaxDiagonals diagonals are shown.
#include "core/segdiajob.h"

#include <QAbstractTableModel>

#include <memory>

namespace spyglass::widgets {

class SegDiaArraysModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int kMaxRows = 512;
    static constexpr int kMaxDiagonals = 200;

    explicit SegDiaArraysModel(QObject* parent = nullptr);
    // A segment outside the format (or no format) shows nothing.
    void setSegment(std::shared_ptr<const SegmentedDiaMatrix<double>> format, int segment);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const SegmentedDiaMatrix<double>> m_format;
    int m_segment = -1;
    int m_rows = 0, m_diagonals = 0;  // shown
};

} // namespace spyglass::widgets
