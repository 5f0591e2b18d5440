// spyglass-cli info FILE [--json]: the structural statistics of a matrix file (Matrix Market or .spy).
#include "cliargs.h"
#include "command.h"
#include "inputmatrix.h"
#include "phasetimings.h"

#include "spyglass/backend.h"
#include "spyglass/hostmemory.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/stats.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace spyglass::cli {
namespace {

QJsonObject statsJson(const QString& file, const MatrixStats& s) {
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

void printText(const QString& file, const MatrixStats& s) {
    auto yesNo = [](bool b) { return b ? "yes" : "no"; };
    std::printf("file                %s\n", qPrintable(file));
    std::printf("size                %d x %d\n", s.rows, s.cols);
    std::printf("layout              %s\n", toString(s.layout));
    std::printf("field               %s\n", toString(s.field));
    std::printf("symmetry            %s\n", toString(s.symmetry));
    std::printf("stored entries      %lld", static_cast<long long>(s.stored));
    // Everything below counts one entry per position, as the formats see the matrix.
    if (s.distinct.duplicatesSummed > 0)
        std::printf(" (%lld duplicate%s summed into earlier entries: counted once below)", static_cast<long long>(s.distinct.duplicatesSummed),
                    s.distinct.duplicatesSummed == 1 ? "" : "s");
    if (s.distinct.arrayZerosDropped > 0)
        std::printf(" (%lld zeros of the dense array not counted below, as MATLAB's nnz and scipy's count_nonzero)",
                    static_cast<long long>(s.distinct.arrayZerosDropped));
    std::printf("\n");
    std::printf("entries (expanded)  %lld\n", static_cast<long long>(s.nnz));
    std::printf("density             %.6g\n", s.density);
    std::printf("bandwidth           %d (lower %d, upper %d)\n", s.bandwidth, s.lowerBandwidth, s.upperBandwidth);
    std::printf("distinct diagonals  %lld\n", static_cast<long long>(s.diagonals));
    std::printf("empty rows          %d\n", s.emptyRows);
    std::printf("empty columns       %d\n", s.emptyCols);
    std::printf("max entries per row %d\n", s.maxRowEntries);
    std::printf("binary              %s\n", yesNo(s.binary));
    std::printf("non-finite values   %s\n", yesNo(s.hasNonFinite));
}

int runInfo(const QStringList& args) {
    ArgParser parser(args);
    const bool json = parser.flag(QStringLiteral("--json"));
    const QString file = parser.positionals(1, 1, QStringLiteral("FILE")).first();
    PhaseTimings timings;
    DistinctEntriesReport distinct;
    Matrix matrix = readInputMatrix(file, &distinct);
    timings.mark("read");
    // computeStats keeps a byte of counters per row and a bit per column and per diagonal (per thread).
    requireHostMemory(std::uint64_t(matrix.rows) + (2 * std::uint64_t(matrix.rows) + 2 * std::uint64_t(matrix.cols)) / 8,
                      QFile::encodeName(file).toStdString() + ": statistics of a " + std::to_string(matrix.rows) + " x " +
                          std::to_string(matrix.cols) + " matrix");
    // --threads bounds the statistics' threads too (the default is every core).
    const unsigned limit = readerThreads();
    MatrixStats stats = computeStats(matrix, limit > 0 ? std::min(limit, automaticStatsThreads(matrix)) : 0);
    noteDistinctEntries(stats, distinct);
    timings.mark("stats");
    {
        const Matrix released = std::move(matrix);  // giving back a multi-GB matrix takes a while
    }
    timings.mark("free");
    if (json)
        std::fputs(QJsonDocument(statsJson(file, stats)).toJson(QJsonDocument::Indented).constData(), stdout);
    else
        printText(file, stats);
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(info, "info", "info FILE [--json]",
                     "structural statistics of a matrix file (.mtx, .mtx.gz or a .spy export)", runInfo);

} // namespace spyglass::cli
