#include "matrixdocument.h"

#include <QFileInfo>

#include <cmath>

namespace spyglass::app {

MatrixDocument::MatrixDocument(QString path, std::shared_ptr<const Matrix> matrix, MatrixStats stats,
                               std::shared_ptr<const MatrixEntryIndex> entries)
    : m_path(std::move(path)), m_matrix(std::move(matrix)), m_stats(stats), m_entries(std::move(entries)) {}

QString MatrixDocument::fileName() const { return QFileInfo(m_path).fileName(); }

CellValue MatrixDocument::cellValue(Index row, Index col) const {
    if (!m_entries) return {};
    return m_entries->lookup(row, col);
}

QString formatValue(const std::complex<double>& value, Field field) {
    // 'g' with 17 digits would show binary noise; 10 significant digits are enough to read.
    auto number = [](double v) { return QString::number(v, 'g', 10); };
    if (field == Field::Complex) {
        const double im = value.imag();
        return number(value.real()) + (im < 0 || std::signbit(im) ? QStringLiteral(" - ") : QStringLiteral(" + "))
               + number(std::abs(im)) + QStringLiteral("i");
    }
    return number(value.real());
}

QString MatrixDocument::describeCell(Index row, Index col) const {
    QString text = QStringLiteral("row %1, col %2: ").arg(qint64(row) + 1).arg(qint64(col) + 1);
    if (!m_matrix) return text + QStringLiteral("(no matrix)");
    const CellValue cell = cellValue(row, col);
    if (!cell.present) return text + QStringLiteral("0 (no entry)");
    text += formatValue(cell.value, m_matrix->field);
    if (m_matrix->field == Field::Pattern) text += QStringLiteral(" (pattern)");
    if (cell.mirrored) text += QStringLiteral(" (mirrored)");
    if (cell.duplicates > 0) text += QStringLiteral(" (sum of %1 duplicates)").arg(cell.duplicates + 1);
    return text;
}

} // namespace spyglass::app
