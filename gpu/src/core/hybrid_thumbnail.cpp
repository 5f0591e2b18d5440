// The detection thumbnail: nonzeros binned into square pixels. This pass over every nonzero is the
// cost of detection, so it is a tight loop over the CSR arrays, one band of pixel rows per thread.
#include "core/hybrid_pixeldivider.h"
#include "core/hybrid_threads.h"
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

namespace {

// Entries plus rows up to each thumbnail line: the cost of binning it, for balancing the bands.
struct LineWork {
    const BinaryPattern* pattern;
    Index cellsPerPixel;
    Count operator[](std::size_t line) const {
        const Index row = static_cast<Index>(std::min<std::int64_t>(pattern->rows, static_cast<std::int64_t>(line) * cellsPerPixel));
        return pattern->rowPtr[row] + row;
    }
};

} // namespace

PatternThumbnail renderPatternThumbnail(const BinaryPattern& pattern, Index cellsPerPixel,
                                        const std::atomic<bool>* cancel, int threads) {
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
    if (pixels == 0) return thumb;
    const Index* columns = pattern.colIndex.data();
    const hybrid_detail::PixelDivider toPixel(static_cast<std::uint64_t>(cellsPerPixel));
    // Each band of thumbnail lines is binned by one thread into its own lines: no merge, no sharing.
    const std::size_t lines = static_cast<std::size_t>(thumb.height);
    const std::size_t workers = hybrid_detail::threadCount(threads);
    const std::vector<std::size_t> bands =
        workers <= 1 ? std::vector<std::size_t>{0, lines}
                     : parallel::balancedBounds(LineWork{&pattern, cellsPerPixel}, lines, std::min(lines, workers * 8));
    hybrid_detail::forEachItem(bands.size() - 1, workers, [&](std::size_t band) {
        Count sincePoll = 0;
        for (std::size_t y = bands[band]; y < bands[band + 1]; ++y) {
            std::uint32_t* line = thumb.counts.data() + y * static_cast<std::size_t>(thumb.width);
            const Index first = static_cast<Index>(y) * cellsPerPixel;
            const Index last = static_cast<Index>(std::min<std::int64_t>(pattern.rows, static_cast<std::int64_t>(first) + cellsPerPixel));
            const Count begin = pattern.rowPtr[first], end = pattern.rowPtr[last];
            if (cellsPerPixel == 1) {
                for (Count k = begin; k < end; ++k) ++line[columns[k]];
            } else {
                for (Count k = begin; k < end; ++k) ++line[toPixel(static_cast<std::uint32_t>(columns[k]))];
            }
            sincePoll += end - begin + (last - first);
            if (sincePoll > (Count(1) << 22)) {
                sincePoll = 0;
                hybrid_detail::pollCancel(cancel);
            }
        }
    });
    return thumb;
}

} // namespace spyglass
