// The row blocks of the segmented-DIA remainder (segdia_remainder_blocks.h). Blocks are cut as
// CSR-Stream (Greathouse & Daga, "Efficient sparse matrix-vector multiplication on GPUs using the CSR
// storage format", SC 2014) cuts them: consecutive rows until the entries would pass what one thread
// block keeps in shared memory, so that every block loads its entries in coalesced sweeps whatever
// the row lengths, and the blocks are about equal work wherever the rows are long or short.
#include "spyglass/segdia_remainder_blocks.h"

#include "core/instantiate.h"
#include "spyglass/error.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

namespace spyglass {

template <typename T> bool remainderFitsRowBlocks(const SegmentedDiaMatrix<T>& m) {
    return m.remainderValues.size() <= std::size_t(INT32_MAX);
}

template <typename T> bool remainderIsLight(const SegmentedDiaMatrix<T>& m) {
    if (Count(m.remainderValues.size()) * 8 > m.nonzeros) return false;
    for (Index s = 0; s < m.segments(); ++s)
        if (m.segmentRemainderCount(s) > Count(m.segmentDiagonals(s)) * m.segmentRows(s)) return false;
    return true;
}

template <typename T> RemainderRowBlocks planRemainderRowBlocks(const SegmentedDiaMatrix<T>& m) {
    if (!remainderFitsRowBlocks(m))
        throw InputError("segmented DIA: a remainder of " + std::to_string(m.remainderValues.size()) +
                         " entries does not index with 32 bits; the row-blocks kernel cannot take it");
    RemainderRowBlocks plan;
    plan.rowStart.assign(static_cast<std::size_t>(m.rows) + 1, 0);
    std::vector<char> assigns(static_cast<std::size_t>(m.rows), 0);
    for (Index s = 0; s < m.segments(); ++s) {
        const Index first = m.segmentFirstRow[s], rows = m.segmentRows(s);
        const bool bare = m.segmentDiagonals(s) == 0;
        const bool hasRemainder = m.segmentRemainderCount(s) > 0;
        const Index* local = hasRemainder ? m.remainderRowStart.data() + m.segmentRemainderRowStart[s] : nullptr;
        for (Index i = 0; i < rows; ++i) {
            const Index length = hasRemainder ? local[i + 1] - local[i] : 0;
            plan.rowStart[std::size_t(first + i) + 1] = plan.rowStart[std::size_t(first + i)] + length;
            assigns[std::size_t(first + i)] = bare;
        }
    }

    RemainderRowBlock open;
    Index openEntries = 0;
    const auto entriesOf = [&](Index first, Index rows) {
        return std::pair<Index, Index>{plan.rowStart[std::size_t(first)], plan.rowStart[std::size_t(first + rows)]};
    };
    const auto push = [&](RemainderRowBlock block) {
        std::tie(block.entryBegin, block.entryEnd) = entriesOf(block.firstRow, block.rows);
        plan.blocks.push_back(block);
    };
    const Index budget = remainderBlockEntries<T>();
    const auto close = [&] {
        if (open.rows > 0) push(open);
        open = {};
        openEntries = 0;
    };
    for (Index r = 0; r < m.rows; ++r) {
        const Index length = plan.rowStart[std::size_t(r) + 1] - plan.rowStart[std::size_t(r)];
        const Index flags = assigns[std::size_t(r)] ? kRemainderAssigns : 0;
        if (length == 0 && flags == 0) {
            // Nothing to add: a row the DIA pass finishes. It stays inside an open adding block (a row
            // start read, no store) rather than cutting it, so scattered remainder rows still share
            // blocks; an assigning block would overwrite it, so that one is cut.
            if (open.rows > 0 && open.flags == 0 && open.rows < kRemainderBlockRows) ++open.rows;
            else close();
            continue;
        }
        if (length > budget) {
            close();
            push({r, 1, flags | kRemainderLongRow});
            continue;
        }
        if (open.rows > 0 && (open.flags != flags || openEntries + length > budget || open.rows == kRemainderBlockRows))
            close();
        if (open.rows == 0) open = {r, 0, flags, 0, 0};
        ++open.rows;
        openEntries += length;
    }
    close();
    // Longest first: a block of a long row takes several times a usual block's time, and the GPU
    // starts blocks in order, so one started last would run alone at the end of the pass.
    std::stable_partition(plan.blocks.begin(), plan.blocks.end(),
                          [](const RemainderRowBlock& b) { return (b.flags & kRemainderLongRow) != 0; });
    const auto longEnd = std::find_if(plan.blocks.begin(), plan.blocks.end(),
                                      [](const RemainderRowBlock& b) { return (b.flags & kRemainderLongRow) == 0; });
    std::stable_sort(plan.blocks.begin(), longEnd, [](const RemainderRowBlock& a, const RemainderRowBlock& b) {
        return a.entryEnd - a.entryBegin > b.entryEnd - b.entryBegin;
    });
    return plan;
}

#define SPYGLASS_INSTANTIATE_REMAINDER_BLOCKS(T)                                        \
    template bool remainderFitsRowBlocks(const SegmentedDiaMatrix<T>&);                 \
    template bool remainderIsLight(const SegmentedDiaMatrix<T>&);                       \
    template RemainderRowBlocks planRemainderRowBlocks(const SegmentedDiaMatrix<T>&);
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_REMAINDER_BLOCKS)

} // namespace spyglass
