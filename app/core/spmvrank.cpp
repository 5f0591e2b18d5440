#include "spmvrank.h"

#include "checkedwrite.h"
#include "spmvrun.h"

#include "spyglass/error.h"
#include "spyglass/matrixmarket_rows.h"
#include "spyglass/segdia_spmv.h"
#include "spyglass/spmvtiming.h"

#include <type_traits>
#include <utility>

namespace spyglass::app {
namespace {

// What a rank computes before anything is gathered.
struct RankProduct {
    Index rowBegin = 0, rowEnd = 0;
    std::vector<double> y;
    TimedSpmv timed;
};

template <typename T>
RankProduct multiplyRows(const RankSpmvRequest& request, const ProcessGroup& group) {
    const std::string path = localPath(request.source);
    RankRows rows = readMatrixMarketRows(path, group.rank, group.worldSize, sizeof(T));
    if (rows.entries.isComplex())
        throw InputError(path + ": one process per GPU multiplies real values; a complex matrix runs in one process");
    requireSpmvInput(rows.entries, request.source);
    RankProduct product;
    product.rowBegin = rows.rowBegin;
    product.rowEnd = rows.rowEnd;
    // Every rank builds the whole x exactly as one process does (the same seed, the same file), so
    // that its rows' y are the single-process run's.
    const std::vector<T> x = spmvInputVector<T>(request.xSource, request.seed, rows.entries.cols);
    const CsrMatrix<T> slice = rankCsrSlice<T>(rows);
    if (slice.rows > 0) {
        const std::vector<T> y = spmv(slice, x, SpmvOptions{SpmvBackend::Cusparse});
        product.y.assign(y.begin(), y.end());
    }
    if (request.time && slice.rows > 0) {
        // --time measures a real matrix in f64 (timeSpmvBesideVendor<double>), whatever --type says.
        if constexpr (std::is_same_v<T, double>) {
            product.timed = timeSpmv(slice, x, SpmvOptions{SpmvBackend::Cusparse}, request.timing);
        } else {
            const std::vector<double> xd = spmvInputVector<double>(request.xSource, request.seed, rows.entries.cols);
            product.timed = timeSpmv(rankCsrSlice<double>(rows), xd, SpmvOptions{SpmvBackend::Cusparse}, request.timing);
        }
        product.timed.y.clear();
    }
    return product;
}

} // namespace

RankSpmvOutcome runSpmvAsRank(const RankSpmvRequest& request) {
    const ProcessGroup group = processGroupOf(request.place);
    // The communicator first: it makes this rank's GPU current for the multiply, and every failure
    // after it reaches the other ranks instead of leaving them waiting.
    const RankCommunicator communicator(group);
    const RankProduct product = runAgreed(communicator, "multiply its rows", [&] {
        return request.singlePrecision ? multiplyRows<float>(request, group) : multiplyRows<double>(request, group);
    });

    RankSpmvOutcome outcome;
    outcome.rank = group.rank;
    outcome.worldSize = group.worldSize;
    outcome.device = group.device;
    outcome.rowBegin = product.rowBegin;
    outcome.rowEnd = product.rowEnd;
    outcome.y = communicator.gatherToRoot(product.y);
    if (request.time) {
        outcome.slowestRank = slowestRank(communicator, product.timed.timing.medianMs);
        outcome.timing = measurementOf(communicator, outcome.slowestRank, product.timed.timing);
        outcome.bytesMoved = figuresOf(communicator, outcome.slowestRank, {product.timed.bytesMoved}).front();
    }
    if (group.rank != 0)
        outcome.line = QStringLiteral("%1: rows [%2, %3)\n").arg(rankName(group)).arg(product.rowBegin).arg(product.rowEnd);
    return outcome;
}

} // namespace spyglass::app
