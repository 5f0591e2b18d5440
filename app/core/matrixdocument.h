#pragma once
// The open matrix as the application sees it: the data (shared, immutable), where it came from,
// its statistics and a value index for hover lookups. A plain value type: cheap to copy, safe to
// pass through queued signals.
#include "matrixentryindex.h"

#include "spyglass/matrix.h"
#include "spyglass/stats.h"

#include <QMetaType>
#include <QString>

#include <memory>

namespace spyglass::app {

class MatrixDocument {
public:
    MatrixDocument() = default;
    MatrixDocument(QString path, std::shared_ptr<const Matrix> matrix, MatrixStats stats,
                   std::shared_ptr<const MatrixEntryIndex> entries);

    bool isEmpty() const { return !m_matrix; }
    const QString& path() const { return m_path; }
    QString fileName() const;
    const std::shared_ptr<const Matrix>& matrix() const { return m_matrix; }
    const MatrixStats& stats() const { return m_stats; }
    Index rows() const { return m_matrix ? m_matrix->rows : 0; }
    Index cols() const { return m_matrix ? m_matrix->cols : 0; }

    // 0-based cell; not present when there is no entry there (or no index was built).
    CellValue cellValue(Index row, Index col) const;
    // "row 12, col 7: 3.5" with 1-based indices as in the file; "(no entry) 0" for an empty cell.
    QString describeCell(Index row, Index col) const;

private:
    QString m_path;
    std::shared_ptr<const Matrix> m_matrix;
    MatrixStats m_stats;
    std::shared_ptr<const MatrixEntryIndex> m_entries;
};

// Number formatting shared by the hover text and the stats panel.
QString formatValue(const std::complex<double>& value, Field field);

} // namespace spyglass::app

Q_DECLARE_METATYPE(spyglass::app::MatrixDocument)
