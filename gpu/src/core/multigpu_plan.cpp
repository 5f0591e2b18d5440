// Row partitions balanced by the format's bytes, the exchange each plan needs, and the row slices
// one rank holds (see spyglass/multigpu.h).
#include "core/multigpu_rowbytes.h"

#include "spyglass/error.h"
#include "spyglass/multigpu.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>

namespace spyglass {

namespace {

RowCosts emptyCosts(Index rows) {
    RowCosts costs;
    costs.bytesBefore.assign(static_cast<std::size_t>(rows) + 1, 0);
    costs.colBegin.assign(static_cast<std::size_t>(rows), std::numeric_limits<Index>::max());
    costs.colEnd.assign(static_cast<std::size_t>(rows), 0);
    costs.cutAllowed.assign(static_cast<std::size_t>(rows) + 1, 1);
    return costs;
}

void widen(RowCosts& costs, Index row, Index begin, Index end) {
    if (begin >= end) return;
    costs.colBegin[row] = std::min(costs.colBegin[row], begin);
    costs.colEnd[row] = std::max(costs.colEnd[row], end);
}

void accumulate(RowCosts& costs, const std::vector<std::uint64_t>& rowBytes) {
    for (std::size_t r = 0; r < rowBytes.size(); ++r) costs.bytesBefore[r + 1] = costs.bytesBefore[r] + rowBytes[r];
}

} // namespace

template <typename T>
RowCosts csrRowCosts(const CsrMatrix<T>& a) {
    RowCosts costs = emptyCosts(a.rows);
    std::vector<std::uint64_t> bytes(static_cast<std::size_t>(a.rows));
    for (Index r = 0; r < a.rows; ++r) {
        const Count first = a.rowPtr[r], last = a.rowPtr[r + 1];
        bytes[r] = csrRowBytes(last - first, sizeof(T));
        for (Count k = first; k < last; ++k) widen(costs, r, a.colIndex[k], a.colIndex[k] + 1);
    }
    accumulate(costs, bytes);
    return costs;
}

template <typename T>
RowCosts segmentedDiaRowCosts(const SegmentedDiaMatrix<T>& a) {
    RowCosts costs = emptyCosts(a.rows);
    std::fill(costs.cutAllowed.begin(), costs.cutAllowed.end(), 0);
    std::vector<std::uint64_t> bytes(static_cast<std::size_t>(a.rows));
    for (Index s = 0; s < a.segments(); ++s) {
        const Index first = a.segmentFirstRow[s], rows = a.segmentRows(s);
        costs.cutAllowed[first] = 1;
        const Index diagonals = a.segmentDiagonals(s);
        const Count remainder = a.segmentRemainderCount(s);
        // The segment's arrays: its DIA slots and offsets, its remainder (row starts, columns, values)
        // and its starts, spread evenly over its rows (the planner cuts only between segments anyway).
        const std::uint64_t segmentBytes = std::uint64_t(diagonals) * rows * sizeof(T) + diagonals * sizeof(Index) +
                                           (remainder ? std::uint64_t(rows + 1) * sizeof(Index) : 0) +
                                           std::uint64_t(remainder) * (sizeof(Index) + sizeof(T)) + 4 * sizeof(Count);
        for (Index i = 0; i < rows; ++i)
            bytes[first + i] = segmentBytes / rows + (Index(segmentBytes % rows) > i ? 1 : 0) + sizeof(T);
        if (diagonals > 0) {
            const Index low = a.offsets[a.segmentOffsetStart[s]], high = a.offsets[a.segmentOffsetStart[s + 1] - 1];
            for (Index i = 0; i < rows; ++i) {
                const Index r = first + i;
                widen(costs, r, std::max<Index>(0, Index(std::max<Count>(0, Count(r) + low))),
                      Index(std::min<Count>(a.cols, std::max<Count>(0, Count(r) + high + 1))));
            }
        }
        if (remainder) {
            const Count base = a.segmentRemainderStart[s];
            const Count rowStarts = a.segmentRemainderRowStart[s];
            for (Index i = 0; i < rows; ++i)
                for (Count k = base + a.remainderRowStart[rowStarts + i]; k < base + a.remainderRowStart[rowStarts + i + 1]; ++k)
                    widen(costs, first + i, a.remainderColumns[k], a.remainderColumns[k] + 1);
        }
    }
    costs.cutAllowed[a.rows] = 1;
    accumulate(costs, bytes);
    return costs;
}

RowCosts hybridRowCosts(const HybridBinaryMatrix& a) {
    RowCosts costs = emptyCosts(a.rows);
    std::vector<std::uint64_t> bytes(static_cast<std::size_t>(a.rows));
    for (Index r = 0; r < a.rows; ++r) {
        const Count first = a.residual.rowPtr[r], last = a.residual.rowPtr[r + 1];
        bytes[r] = sizeof(Count) + sizeof(double) + std::uint64_t(last - first) * sizeof(Index);
        for (Count k = first; k < last; ++k) widen(costs, r, a.residual.colIndex[k], a.residual.colIndex[k] + 1);
    }
    for (const HybridBlock& block : a.blocks) {
        const DenseRegion& region = block.region;
        // A region's rows stay on one rank: no cut strictly inside it.
        for (Index r = region.rowBegin + 1; r < region.rowEnd; ++r) costs.cutAllowed[r] = 0;
        bytes[region.rowBegin] += 64;  // the region's record on the device
        for (Index r = region.rowBegin; r < region.rowEnd; ++r) {
            const Index i = r - region.rowBegin;
            bytes[r] += sizeof(std::uint32_t) + std::uint64_t(block.zeroRowPtr[i + 1] - block.zeroRowPtr[i]) * sizeof(std::uint16_t);
            // The kernel sums x over the box's columns (prefix sums per tile), not just the shape's.
            widen(costs, r, region.colBegin, region.colEnd);
        }
    }
    accumulate(costs, bytes);
    return costs;
}

std::uint64_t PartitionPlan::sendRecvBytes() const {
    std::uint64_t total = 0;
    for (const HaloTransfer& t : halo) total += std::uint64_t(t.end - t.begin) * elementBytes;
    return total;
}

std::uint64_t PartitionPlan::allGatherBytes() const {
    // Every rank receives every other rank's share of x.
    std::uint64_t total = 0;
    for (const RowPartition& p : parts) total += std::uint64_t(rows - p.rows()) * elementBytes;
    return parts.size() > 1 ? total : 0;
}

std::uint64_t PartitionPlan::receivedBytes(int p) const {
    if (parts.size() < 2) return 0;
    if (exchange == HaloExchange::AllGather) return std::uint64_t(rows - parts[std::size_t(p)].rows()) * elementBytes;
    std::uint64_t total = 0;
    for (const HaloTransfer& t : halo)
        if (t.to == p) total += std::uint64_t(t.end - t.begin) * elementBytes;
    return total;
}

double PartitionPlan::imbalance() const {
    if (parts.empty()) return 1;
    std::uint64_t largest = 0, sum = 0;
    for (const RowPartition& p : parts) {
        largest = std::max(largest, p.bytes);
        sum += p.bytes;
    }
    return sum ? double(largest) * double(parts.size()) / double(sum) : 1.0;
}

void planExchange(PartitionPlan& plan, HaloExchange requested) {
    plan.halo.clear();
    // Halo spans: x is owned by the rank whose rows have the same indices (square matrices).
    if (plan.rows == plan.cols) {
        const int n = static_cast<int>(plan.parts.size());
        for (int to = 0; to < n; ++to)
            for (int from = 0; from < n; ++from) {
                if (from == to) continue;
                const Index begin = std::max(plan.parts[to].xBegin, plan.parts[from].rowBegin);
                const Index end = std::min(plan.parts[to].xEnd, plan.parts[from].rowEnd);
                if (begin < end) plan.halo.push_back({from, to, begin, end});
            }
    }
    if (requested == HaloExchange::Auto)
        plan.exchange = plan.sendRecvBytes() < plan.allGatherBytes() ? HaloExchange::SendRecv : HaloExchange::AllGather;
    else
        plan.exchange = requested;
}

PartitionPlan planRowPartitions(const RowCosts& costs, Index cols, int parts, PartitionFormat format,
                                std::size_t elementBytes, HaloExchange requested) {
    if (parts < 1) throw InputError("partitions: at least one is needed (got " + std::to_string(parts) + ")");
    if (costs.bytesBefore.empty() || costs.cutAllowed.size() != costs.bytesBefore.size() ||
        costs.colBegin.size() + 1 != costs.bytesBefore.size() || costs.colEnd.size() != costs.colBegin.size())
        throw InputError("partitions: the row costs are inconsistent");
    const Index rows = static_cast<Index>(costs.colBegin.size());
    PartitionPlan plan;
    plan.rows = rows;
    plan.cols = cols;
    plan.format = format;
    plan.elementBytes = elementBytes;

    // Greedy cuts at the allowed row nearest each ideal share of the bytes; a cut never repeats.
    const std::uint64_t total = costs.bytesBefore[rows];
    std::vector<Index> cuts{0};
    for (int p = 1; p < parts; ++p) {
        const std::uint64_t target = total / parts * p + total % parts * p / parts;
        const auto it = std::lower_bound(costs.bytesBefore.begin(), costs.bytesBefore.end(), target);
        const Index ideal = static_cast<Index>(it - costs.bytesBefore.begin());
        Index best = -1;
        std::uint64_t bestDistance = std::numeric_limits<std::uint64_t>::max();
        // Nearest allowed cut on either side (cut rows are few for segments; scan outward).
        for (Index r = std::min(ideal, rows); r > cuts.back(); --r) {
            if (!costs.cutAllowed[r]) continue;
            const std::uint64_t d = target > costs.bytesBefore[r] ? target - costs.bytesBefore[r] : costs.bytesBefore[r] - target;
            if (d < bestDistance) bestDistance = d, best = r;
            break;
        }
        for (Index r = std::max(ideal, cuts.back() + 1); r < rows; ++r) {
            if (!costs.cutAllowed[r]) continue;
            const std::uint64_t d = costs.bytesBefore[r] > target ? costs.bytesBefore[r] - target : target - costs.bytesBefore[r];
            if (d < bestDistance) bestDistance = d, best = r;
            break;
        }
        if (best > cuts.back() && best < rows) cuts.push_back(best);
    }
    cuts.push_back(rows);
    for (std::size_t p = 0; p + 1 < cuts.size(); ++p) {
        RowPartition part;
        part.rowBegin = cuts[p];
        part.rowEnd = cuts[p + 1];
        part.bytes = costs.bytesBefore[part.rowEnd] - costs.bytesBefore[part.rowBegin];
        Index begin = std::numeric_limits<Index>::max(), end = 0;
        for (Index r = part.rowBegin; r < part.rowEnd; ++r) {
            if (costs.colBegin[r] >= costs.colEnd[r]) continue;
            begin = std::min(begin, costs.colBegin[r]);
            end = std::max(end, costs.colEnd[r]);
        }
        part.xBegin = begin < end ? begin : 0;
        part.xEnd = begin < end ? end : 0;
        plan.parts.push_back(part);
    }
    if (rows == 0) plan.parts.assign(1, RowPartition{});

    planExchange(plan, requested);
    return plan;
}

std::string describePlan(const PartitionPlan& plan) {
    std::string text;
    char line[256];
    std::snprintf(line, sizeof line, "partitions: %zu of %d x %d (%s), balanced by bytes, imbalance %.3f\n", plan.parts.size(),
                  plan.rows, plan.cols, toString(plan.format), plan.imbalance());
    text += line;
    for (std::size_t p = 0; p < plan.parts.size(); ++p) {
        const RowPartition& part = plan.parts[p];
        std::snprintf(line, sizeof line, "  part %zu: rows [%d, %d) %d rows, %.3f MB, reads x[%d, %d)\n", p, part.rowBegin,
                      part.rowEnd, part.rows(), part.bytes / 1e6, part.xBegin, part.xEnd);
        text += line;
    }
    std::snprintf(line, sizeof line, "exchange: %s, %.3f MB per iteration (send/recv %.3f MB in %zu spans, all-gather %.3f MB)\n",
                  toString(plan.exchange), plan.exchangeBytes() / 1e6, plan.sendRecvBytes() / 1e6, plan.halo.size(),
                  plan.allGatherBytes() / 1e6);
    text += line;
    return text;
}

template <typename T>
CsrMatrix<T> sliceRows(const CsrMatrix<T>& a, Index rowBegin, Index rowEnd) {
    if (rowBegin < 0 || rowEnd < rowBegin || rowEnd > a.rows)
        throw InputError("row slice [" + std::to_string(rowBegin) + ", " + std::to_string(rowEnd) + ") outside " +
                         std::to_string(a.rows) + " rows");
    CsrMatrix<T> slice;
    slice.rows = rowEnd - rowBegin;
    slice.cols = a.cols;
    const Count first = a.rowPtr[rowBegin], last = a.rowPtr[rowEnd];
    slice.rowPtr.resize(static_cast<std::size_t>(slice.rows) + 1);
    for (Index r = 0; r <= slice.rows; ++r) slice.rowPtr[r] = a.rowPtr[rowBegin + r] - first;
    slice.colIndex.assign(a.colIndex.begin() + first, a.colIndex.begin() + last);
    slice.values.assign(a.values.begin() + first, a.values.begin() + last);
    return slice;
}

template <typename T>
SegmentedDiaMatrix<T> sliceSegments(const SegmentedDiaMatrix<T>& a, Index rowBegin, Index rowEnd) {
    const auto s0 = std::lower_bound(a.segmentFirstRow.begin(), a.segmentFirstRow.end(), rowBegin) - a.segmentFirstRow.begin();
    const auto s1 = std::lower_bound(a.segmentFirstRow.begin(), a.segmentFirstRow.end(), rowEnd) - a.segmentFirstRow.begin();
    if (rowEnd < rowBegin || s1 >= static_cast<long>(a.segmentFirstRow.size()) || a.segmentFirstRow[s0] != rowBegin ||
        a.segmentFirstRow[s1] != rowEnd)
        throw InputError("segment slice [" + std::to_string(rowBegin) + ", " + std::to_string(rowEnd) +
                         ") does not start and end at segment boundaries");
    SegmentedDiaMatrix<T> slice;
    slice.rows = rowEnd - rowBegin;
    slice.cols = a.cols;
    slice.threshold = a.threshold;
    const Count offsetBase = a.segmentOffsetStart[s0], valueBase = a.segmentValueStart[s0];
    const Count remainderBase = a.segmentRemainderStart[s0];
    slice.segmentFirstRow.push_back(0);
    slice.segmentOffsetStart.push_back(0);
    slice.segmentValueStart.push_back(0);
    slice.segmentRemainderStart.push_back(0);
    slice.segmentRemainderRowStart.push_back(0);
    std::vector<Count> work;
    for (auto s = s0; s < s1; ++s) {
        slice.segmentFirstRow.push_back(a.segmentFirstRow[s + 1] - rowBegin);
        // Local row i is global row rowBegin + i: the same column needs the offset moved by rowBegin.
        for (Count d = a.segmentOffsetStart[s]; d < a.segmentOffsetStart[s + 1]; ++d)
            slice.offsets.push_back(a.offsets[d] + rowBegin);
        slice.segmentOffsetStart.push_back(a.segmentOffsetStart[s + 1] - offsetBase);
        slice.segmentValueStart.push_back(a.segmentValueStart[s + 1] - valueBase);
        slice.segmentRemainderStart.push_back(a.segmentRemainderStart[s + 1] - remainderBase);
        const Count rowStarts = a.segmentRemainderRowStart[s + 1] - a.segmentRemainderRowStart[s];
        slice.segmentRemainderRowStart.push_back(slice.segmentRemainderRowStart.back() + rowStarts);
        slice.remainderRowStart.insert(slice.remainderRowStart.end(), a.remainderRowStart.begin() + a.segmentRemainderRowStart[s],
                                       a.remainderRowStart.begin() + a.segmentRemainderRowStart[s + 1]);
        work.push_back(a.segmentWork(static_cast<Index>(s)));
    }
    slice.values.assign(a.values.begin() + valueBase, a.values.begin() + a.segmentValueStart[s1]);
    slice.remainderColumns.assign(a.remainderColumns.begin() + remainderBase,
                                  a.remainderColumns.begin() + a.segmentRemainderStart[s1]);
    slice.remainderValues.assign(a.remainderValues.begin() + remainderBase,
                                 a.remainderValues.begin() + a.segmentRemainderStart[s1]);
    // Nonzeros: the DIA part's non-padding slots are not recorded per segment; count stored values.
    slice.nonzeros = static_cast<Count>(std::count_if(slice.values.begin(), slice.values.end(), [](const T& v) { return v != T(0); })) +
                     static_cast<Count>(slice.remainderValues.size());
    // Blocks: merged again over the slice's segments (HDIA, one segment a block, stays so).
    const bool merged = a.blocks() != a.segments();
    slice.blockStart.push_back(0);
    if (merged) {
        for (const std::vector<Index>& block : mergeSegmentsByWork(work, &slice.mergeSteps)) {
            slice.blockSegments.insert(slice.blockSegments.end(), block.begin(), block.end());
            slice.blockStart.push_back(static_cast<Index>(slice.blockSegments.size()));
        }
    } else {
        for (Index s = 0; s < slice.segments(); ++s) {
            slice.blockSegments.push_back(s);
            slice.blockStart.push_back(s + 1);
        }
    }
    return slice;
}

HybridBinaryMatrix sliceHybridRows(const HybridBinaryMatrix& a, Index rowBegin, Index rowEnd) {
    if (rowBegin < 0 || rowEnd < rowBegin || rowEnd > a.rows)
        throw InputError("hybrid row slice [" + std::to_string(rowBegin) + ", " + std::to_string(rowEnd) + ") outside " +
                         std::to_string(a.rows) + " rows");
    HybridBinaryMatrix slice;
    slice.rows = rowEnd - rowBegin;
    slice.cols = a.cols;
    slice.csrFallback = a.csrFallback;
    slice.fallbackReason = a.fallbackReason;
    for (const HybridBlock& block : a.blocks) {
        const DenseRegion& r = block.region;
        if (r.rowEnd <= rowBegin || r.rowBegin >= rowEnd) continue;
        if (r.rowBegin < rowBegin || r.rowEnd > rowEnd)
            throw InputError("hybrid row slice [" + std::to_string(rowBegin) + ", " + std::to_string(rowEnd) + ") cuts " +
                             r.describe());
        HybridBlock local = block;
        // Band offsets are local to the box, so moving the box moves the band with it.
        local.region.rowBegin -= rowBegin;
        local.region.rowEnd -= rowBegin;
        slice.blocks.push_back(std::move(local));
    }
    slice.residual.rows = slice.rows;
    slice.residual.cols = a.cols;
    const Count first = a.residual.rowPtr[rowBegin];
    slice.residual.rowPtr.resize(static_cast<std::size_t>(slice.rows) + 1);
    for (Index r = 0; r <= slice.rows; ++r) slice.residual.rowPtr[r] = a.residual.rowPtr[rowBegin + r] - first;
    slice.residual.colIndex.assign(a.residual.colIndex.begin() + first, a.residual.colIndex.begin() + a.residual.rowPtr[rowEnd]);
    return slice;
}

#define SPYGLASS_INSTANTIATE_PLAN(T)                                                              \
    template RowCosts csrRowCosts<T>(const CsrMatrix<T>&);                                         \
    template RowCosts segmentedDiaRowCosts<T>(const SegmentedDiaMatrix<T>&);                       \
    template CsrMatrix<T> sliceRows<T>(const CsrMatrix<T>&, Index, Index);                         \
    template SegmentedDiaMatrix<T> sliceSegments<T>(const SegmentedDiaMatrix<T>&, Index, Index);
SPYGLASS_INSTANTIATE_PLAN(float)
SPYGLASS_INSTANTIATE_PLAN(double)

} // namespace spyglass
