// The detection thumbnail: nonzeros binned into square pixels. This pass over every nonzero is the
// cost of detection, so it is a tight loop over the CSR arrays with a row-to-pixel-row hoist.
#include "spyglass/hybrid_regions.h"
#include "spyglass/error.h"

#include <algorithm>

namespace spyglass {

Index autoCellsPerPixel(Index rows, Index cols, int maxSide) {
    const Index longer = std::max(rows, cols);
    if (maxSide < 1) throw InputError("thumbnail: the longest side must be at least 1 pixel");
    return std::max<Index>(1, (longer + maxSide - 1) / maxSide);
}

double PatternThumbnail::density(int x, int y) const {
    const double h = std::min<double>(cellsPerPixel, rows - static_cast<double>(y) * cellsPerPixel);
    const double w = std::min<double>(cellsPerPixel, cols - static_cast<double>(x) * cellsPerPixel);
    const double cells = h * w;
    return cells > 0 ? counts[static_cast<std::size_t>(y) * width + x] / cells : 0.0;
}

PatternThumbnail renderPatternThumbnail(const BinaryPattern& pattern, Index cellsPerPixel,
                                        const std::atomic<bool>* cancel) {
    if (cellsPerPixel < 1) throw InputError("thumbnail: cells per pixel must be at least 1");
    PatternThumbnail thumb;
    thumb.cellsPerPixel = cellsPerPixel;
    thumb.rows = pattern.rows;
    thumb.cols = pattern.cols;
    thumb.width = static_cast<int>((static_cast<std::int64_t>(pattern.cols) + cellsPerPixel - 1) / cellsPerPixel);
    thumb.height = static_cast<int>((static_cast<std::int64_t>(pattern.rows) + cellsPerPixel - 1) / cellsPerPixel);
    const std::int64_t pixels = static_cast<std::int64_t>(thumb.width) * thumb.height;
    if (pixels > (std::int64_t(1) << 28))
        throw InputError("thumbnail: " + std::to_string(thumb.width) + " x " + std::to_string(thumb.height) +
                         " pixels is too large; raise cells per pixel");
    thumb.counts.assign(static_cast<std::size_t>(pixels), 0);
    const Index* columns = pattern.colIndex.data();
    Count sincePoll = 0;
    for (Index row = 0; row < pattern.rows; ++row) {
        std::uint32_t* line = thumb.counts.data() + static_cast<std::size_t>(row / cellsPerPixel) * thumb.width;
        const Count begin = pattern.rowPtr[row], end = pattern.rowPtr[row + 1];
        if (cellsPerPixel == 1) {
            for (Count k = begin; k < end; ++k) ++line[columns[k]];
        } else {
            for (Count k = begin; k < end; ++k) ++line[columns[k] / cellsPerPixel];
        }
        sincePoll += end - begin + 1;
        if (sincePoll > (Count(1) << 22)) {
            sincePoll = 0;
            if (cancel && cancel->load(std::memory_order_relaxed)) throw CancelledError();
        }
    }
    return thumb;
}

} // namespace spyglass
