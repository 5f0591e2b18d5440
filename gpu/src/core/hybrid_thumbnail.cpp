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
                                        const std::atomic<bool>* cancel, int threads, ThumbnailBinning binning) {
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
    // A row's sorted columns, pixel by pixel: the entries of a pixel are counted as one run (an
    // increment per entry would wait on the previous one to the same pixel).
    auto binRow = [&](const Index* first, const Index* last, std::uint32_t* line) {
        while (first != last) {
            const std::uint32_t pixel = toPixel(static_cast<std::uint32_t>(*first));
            const Index limit = static_cast<Index>(std::min<std::int64_t>(pattern.cols, (static_cast<std::int64_t>(pixel) + 1) * cellsPerPixel));
            const Index* run = first + 1;
            while (run != last && *run < limit) ++run;
            line[pixel] += static_cast<std::uint32_t>(run - first);
            first = run;
        }
    };
    const std::size_t workers = hybrid_detail::threadCount(threads);
    if (binning == ThumbnailBinning::MergedRanges && workers > 1) {
        // Row ranges balanced by nonzeros, each into a private thumbnail (the first into the result),
        // then the copies summed by pixel ranges: integer sums, so any order gives the same counts.
        const std::vector<std::size_t> ranges =
            hybrid_detail::rowChunks(pattern.rowPtr, static_cast<std::size_t>(pattern.rows), workers, 1);
        const std::size_t parts = ranges.size() - 1;
        std::vector<std::vector<std::uint32_t>> privateCounts(parts);
        hybrid_detail::forEachItem(parts, workers, [&](std::size_t part) {
            std::vector<std::uint32_t>& counts = privateCounts[part];
            counts.assign(static_cast<std::size_t>(pixels), 0);
            Count sincePoll = 0;
            for (Index row = static_cast<Index>(ranges[part]); row < static_cast<Index>(ranges[part + 1]); ++row) {
                std::uint32_t* line = counts.data() + toPixel(static_cast<std::uint32_t>(row)) * static_cast<std::size_t>(thumb.width);
                const Count begin = pattern.rowPtr[row], end = pattern.rowPtr[row + 1];
                binRow(columns + begin, columns + end, line);
                sincePoll += end - begin + 1;
                if (sincePoll > (Count(1) << 22)) {
                    sincePoll = 0;
                    hybrid_detail::pollCancel(cancel);
                }
            }
        });
        const std::vector<std::size_t> pieces = parallel::evenBounds(static_cast<std::size_t>(pixels), workers * 4);
        hybrid_detail::forEachItem(pieces.size() - 1, workers, [&](std::size_t piece) {
            for (std::size_t p = pieces[piece]; p < pieces[piece + 1]; ++p) {
                std::uint32_t sum = 0;
                for (const std::vector<std::uint32_t>& counts : privateCounts) sum += counts[p];
                thumb.counts[p] = sum;
            }
        });
        return thumb;
    }
    // Each band of thumbnail lines is binned by one thread into its own lines: no merge, no sharing.
    const std::size_t lines = static_cast<std::size_t>(thumb.height);
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
                for (Index row = first; row < last; ++row) binRow(columns + pattern.rowPtr[row], columns + pattern.rowPtr[row + 1], line);
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
