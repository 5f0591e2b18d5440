#include "matrixstatsjson.h"

#include "spyglass/backend.h"
#include "spyglass/matrixmarket.h"

namespace spyglass::app {

QJsonObject matrixStatsJson(const QString& file, const MatrixStats& s) {
    QJsonObject o;
    o.insert(QStringLiteral("file"), file);
    o.insert(QStringLiteral("rows"), s.rows);
    o.insert(QStringLiteral("cols"), s.cols);
    o.insert(QStringLiteral("stored"), static_cast<qint64>(s.stored));
    o.insert(QStringLiteral("nnz"), static_cast<qint64>(s.nnz));
    o.insert(QStringLiteral("duplicates_summed"), static_cast<qint64>(s.distinct.duplicatesSummed));
    o.insert(QStringLiteral("array_zeros_dropped"), static_cast<qint64>(s.distinct.arrayZerosDropped));
    o.insert(QStringLiteral("field"), QString::fromLatin1(toString(s.field)));
    o.insert(QStringLiteral("symmetry"), QString::fromLatin1(toString(s.symmetry)));
    o.insert(QStringLiteral("layout"), QString::fromLatin1(toString(s.layout)));
    o.insert(QStringLiteral("density"), s.density);
    o.insert(QStringLiteral("bandwidth"), s.bandwidth);
    o.insert(QStringLiteral("lower_bandwidth"), s.lowerBandwidth);
    o.insert(QStringLiteral("upper_bandwidth"), s.upperBandwidth);
    o.insert(QStringLiteral("diagonals"), static_cast<qint64>(s.diagonals));
    o.insert(QStringLiteral("empty_rows"), s.emptyRows);
    o.insert(QStringLiteral("empty_cols"), s.emptyCols);
    o.insert(QStringLiteral("max_row_entries"), s.maxRowEntries);
    o.insert(QStringLiteral("binary"), s.binary);
    o.insert(QStringLiteral("has_non_finite"), s.hasNonFinite);
    // Statistics are a single pass on the host: always the CPU reference, whatever GPU is present.
    o.insert(QStringLiteral("backend"), QString::fromLatin1(toString(BackendKind::Reference)));
    return o;
}

} // namespace spyglass::app
