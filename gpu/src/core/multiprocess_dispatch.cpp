// One process per GPU (spyglass/multiprocess.h): the checks every rank makes before it meets the
// others (a rank that fails alone later would leave them waiting), its part of the plan, dispatch.
#include "core/multigpu_device.h"
#include "core/multiprocess_device.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace spyglass {

namespace {

std::string rankName(const ProcessGroup& group) {
    return "rank " + std::to_string(group.rank) + " of " + std::to_string(group.worldSize);
}

template <typename T>
void checkRank(const CsrMatrix<T>& slice, const std::vector<Index>& blockStarts, const ProcessGroup& group,
               const PartitionRunOptions& options) {
    if (group.worldSize < 1) throw InputError("one process per GPU: the world size must be at least 1 (got " + std::to_string(group.worldSize) + ")");
    if (group.rank < 0 || group.rank >= group.worldSize)
        throw InputError("one process per GPU: rank " + std::to_string(group.rank) + " is outside 0.." + std::to_string(group.worldSize - 1));
    if (blockStarts.size() != std::size_t(group.worldSize) + 1 || !std::is_sorted(blockStarts.begin(), blockStarts.end()) ||
        blockStarts.front() != 0)
        throw InputError(rankName(group) + ": the row blocks are not " + std::to_string(group.worldSize) + " blocks from row 0");
    const Index rows = blockStarts.back();
    const Index own = blockStarts[std::size_t(group.rank) + 1] - blockStarts[std::size_t(group.rank)];
    if (slice.rows != own)
        throw InputError(rankName(group) + ": its slice has " + std::to_string(slice.rows) + " rows, its block " + std::to_string(own));
    if (slice.cols != rows)
        throw InputError(rankName(group) + ": power iteration needs a square matrix (got " + std::to_string(rows) + " x " +
                         std::to_string(slice.cols) + ")");
    if (rows == 0) throw InputError("power iteration: the matrix is empty");
    if (options.iterations < 1 || options.iterations > 1000000)
        throw InputError("power iteration: iterations must be 1..1000000 (got " + std::to_string(options.iterations) + ")");
    if (options.warmup < 0 || options.warmup >= options.iterations)
        throw InputError("power iteration: warm-up iterations must be 0.." + std::to_string(options.iterations - 1) + " (got " +
                         std::to_string(options.warmup) + ")");
}

} // namespace

int deviceForLocalRank(int localRank) {
    const int devices = multigpu_detail::deviceCount();
    return devices > 0 ? std::max(0, localRank) % devices : 0;
}

template <typename T>
CsrMatrix<T> rankCsrSlice(const RankRows& rows) {
    // toCsr of the rank's entries, their rows counted from the block's first: the same summing and
    // sorting as toCsr of the whole matrix, so the slice is the one sliceRows would cut.
    Matrix local = rows.entries;
    local.rows = rows.rowEnd - rows.rowBegin;
    for (Index& r : local.rowIndex) r -= rows.rowBegin;
    return toCsr<T>(local);
}

template <typename T>
PartitionPlan rankPartialPlan(const CsrMatrix<T>& slice, const std::vector<Index>& blockStarts, int rank) {
    if (rank < 0 || std::size_t(rank) + 1 >= blockStarts.size() || slice.rows != blockStarts[std::size_t(rank) + 1] - blockStarts[std::size_t(rank)])
        throw InputError("rank " + std::to_string(rank) + ": its slice of " + std::to_string(slice.rows) + " rows is not its block of rows");
    PartitionPlan plan;
    plan.rows = blockStarts.back();
    plan.cols = slice.cols;
    plan.format = PartitionFormat::Csr;
    plan.elementBytes = sizeof(T);
    for (std::size_t p = 0; p + 1 < blockStarts.size(); ++p) {
        RowPartition part;
        part.rowBegin = blockStarts[p];
        part.rowEnd = blockStarts[p + 1];
        plan.parts.push_back(part);
    }
    // The bytes and x span as csrRowCosts and planRowPartitions give them for these rows.
    const RowCosts costs = csrRowCosts(slice);
    RowPartition& own = plan.parts[std::size_t(rank)];
    own.bytes = costs.bytesBefore.back();
    Index begin = slice.cols, end = 0;
    for (std::size_t r = 0; r < costs.colBegin.size(); ++r)
        if (costs.colBegin[r] < costs.colEnd[r]) begin = std::min(begin, costs.colBegin[r]), end = std::max(end, costs.colEnd[r]);
    own.xBegin = begin < end ? begin : 0;
    own.xEnd = begin < end ? end : 0;
    return plan;
}

template <typename T>
RankPowerResult powerIterationAsRank(CsrMatrix<T> slice, const std::vector<Index>& blockStarts, const ProcessGroup& group,
                                     const PartitionRunOptions& options, HaloExchange exchange) {
    checkRank(slice, blockStarts, group, options);
    const PartitionPlan plan = rankPartialPlan(slice, blockStarts, group.rank);
    RankPowerResult run = multigpu_detail::powerIterationAsRankOnDevice(std::move(slice), plan, group, options, exchange, powerStartVector(plan.rows));
    const PowerIterationResult& result = run.result;
    for (std::size_t k = 0; k < result.rayleigh.size(); ++k)
        if (!std::isfinite(result.rayleigh[k]))
            throw InputError("power iteration: x'Ax / x'x is not finite at iteration " + std::to_string(k + 1) +
                             " (A x became zero, or the matrix holds NaN/Inf or overflows " + (sizeof(T) == 4 ? "float" : "double") + ")");
    return run;
}

#define SPYGLASS_INSTANTIATE_MULTIPROCESS(T)                                                                        \
    template CsrMatrix<T> rankCsrSlice<T>(const RankRows&);                                                         \
    template PartitionPlan rankPartialPlan<T>(const CsrMatrix<T>&, const std::vector<Index>&, int);                 \
    template RankPowerResult powerIterationAsRank<T>(CsrMatrix<T>, const std::vector<Index>&, const ProcessGroup&, \
                                                     const PartitionRunOptions&, HaloExchange);
SPYGLASS_INSTANTIATE_MULTIPROCESS(float)
SPYGLASS_INSTANTIATE_MULTIPROCESS(double)

} // namespace spyglass
