// The segmented-DIA device matrix's upload: every array of the format on the caller's stream, plus
// what the remainder kernels derive from it (not stored in the format): the long remainder rows of
// each segment for the owner kernel's warp pass, and the row blocks of the row-blocks pass with the
// blocks of the DIA pass before it. Host code only; the kernels and their launchers are in
// segdia_spmv.cu and segdia_remainder_spmv.cu.
#include "core/instantiate.h"
#include "spyglass/segdia_remainder_blocks.h"
#include "spyglass/cuda/segdia_device_api.h"

#include <cstring>
#include <vector>

namespace spyglass::cuda {

template <typename T>
DeviceSegmentedDia<T>::DeviceSegmentedDia(const SegmentedDiaMatrix<T>& m, cudaStream_t stream)
    : m_rows(m.rows), m_cols(m.cols), m_blocks(m.blocks()), m_threshold(m.threshold) {
    m_blockStart.upload(m.blockStart, stream);
    m_blockSegments.upload(m.blockSegments, stream);
    m_segmentFirstRow.upload(m.segmentFirstRow, stream);
    m_offsets.upload(m.offsets, stream);
    m_segmentOffsetStart.upload(m.segmentOffsetStart, stream);
    m_segmentValueStart.upload(m.segmentValueStart, stream);
    m_values.upload(m.values, stream);
    m_hasRemainder = !m.remainderValues.empty();
    if (m_hasRemainder) {
        m_segmentRemainderStart.upload(m.segmentRemainderStart, stream);
        m_segmentRemainderRowStart.upload(m.segmentRemainderRowStart, stream);
        m_remainderRowStart.upload(m.remainderRowStart, stream);
        m_remainderColumns.upload(m.remainderColumns, stream);
        m_remainderValues.upload(m.remainderValues, stream);
        // The long remainder rows of each segment, for the owner kernel's warp pass (derived here,
        // not stored in the format).
        std::vector<Index> longRowStart(static_cast<std::size_t>(m.segments()) + 1, 0), longRows;
        for (Index s = 0; s < m.segments(); ++s) {
            if (m.segmentRemainderCount(s) > 0) {
                const Index* rowStart = m.remainderRowStart.data() + m.segmentRemainderRowStart[s];
                for (Index i = 0; i < m.segmentRows(s); ++i)
                    if (rowStart[i + 1] - rowStart[i] > kLongRow) longRows.push_back(i);
            }
            longRowStart[s + 1] = Index(longRows.size());
        }
        m_longRowStart.upload(longRowStart, stream);
        m_longRows.upload(longRows, stream);
        m_remainderLight = remainderIsLight(m);
        if (remainderFitsRowBlocks(m)) {
            const RemainderRowBlocks plan = planRemainderRowBlocks(m);
            static_assert(sizeof(RemainderRowBlock) == 5 * sizeof(Index), "blocks travel as five Index fields");
            std::vector<Index> blocks(plan.blocks.size() * 5);
            std::memcpy(blocks.data(), plan.blocks.data(), blocks.size() * sizeof(Index));
            m_remainderGlobalRowStart.upload(plan.rowStart, stream);
            m_remainderBlocks.upload(blocks, stream);
            m_remainderBlockCount = Index(plan.blocks.size());
            // The DIA pass before the row blocks: the segments with diagonals only, merged by their DIA
            // work alone. The format's blocks also weigh the remainder, which this pass no longer sums:
            // with them a matrix whose segments held ~15 000 DIA nonzeros and 10 M remainder ones ran
            // its DIA pass as 27 blocks of ~36 segments each, ~50 us (blocky valued, H200).
            std::vector<Index> withDiagonals;
            std::vector<Count> work;
            for (Index s = 0; s < m.segments(); ++s)
                if (m.segmentDiagonals(s) > 0) {
                    withDiagonals.push_back(s);
                    work.push_back(Count(m.segmentDiagonals(s)) * m.segmentRows(s));
                }
            std::vector<Index> diaBlockStart(1, 0), diaBlockSegments;
            for (const std::vector<Index>& block : mergeSegmentsByWork(work, nullptr)) {
                for (Index k : block) diaBlockSegments.push_back(withDiagonals[std::size_t(k)]);
                diaBlockStart.push_back(Index(diaBlockSegments.size()));
            }
            m_diaPassBlockStart.upload(diaBlockStart, stream);
            m_diaPassBlockSegments.upload(diaBlockSegments, stream);
            m_diaPassBlocks = Index(diaBlockStart.size()) - 1;
            SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));  // plan, blocks and segments go out of scope
        }
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vectors go out of scope
    }
    m_bytes = double(computeSegmentedDiaStats(m).bytes) + double(sizeof(T)) * (double(m.rows) + double(m.cols));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

#define SPYGLASS_INSTANTIATE_DEVICE_SEGDIA(T) template class DeviceSegmentedDia<T>;
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_DEVICE_SEGDIA)

} // namespace spyglass::cuda
