// spyglass-cli info FILE [--json]: the structural statistics of a matrix file (Matrix Market or .spy).
#include "cliargs.h"
#include "command.h"
#include "inputmatrix.h"
#include "phasetimings.h"

#include "core/matrixread.h"
#include "core/matrixstatsjson.h"

#include <QJsonDocument>

#include <cstdio>
#include <utility>

namespace spyglass::cli {
namespace {

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
    // --threads bounds the statistics' threads too (the default is every core).
    const MatrixStats stats = app::matrixStatistics(matrix, distinct, file, readerThreads());
    timings.mark("stats");
    {
        const Matrix released = std::move(matrix);  // giving back a multi-GB matrix takes a while
    }
    timings.mark("free");
    if (json)
        std::fputs(QJsonDocument(app::matrixStatsJson(file, stats)).toJson(QJsonDocument::Indented).constData(), stdout);
    else
        printText(file, stats);
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(info, "info", "info FILE [--json]",
                     "structural statistics of a matrix file (.mtx, .mtx.gz or a .spy export)", runInfo);

} // namespace spyglass::cli
