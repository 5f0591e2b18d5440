// Generated binary matrices for method D: dense shapes on a coarse grid plus scattered ones, and the
// seed's 10 x 10 worked example. Built row by row straight into CSR so that a 200 M-nonzero case
// never holds a coordinate list.
#include "spyglass/error.h"
#include "spyglass/hybrid_binary.h"

#include <algorithm>
#include <numeric>

namespace spyglass {

namespace {

// splitmix64: small, fast, and the same sequence on every platform.
struct SplitMix {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
    std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
};

struct PlantedShape {
    DenseRegion region;
    std::uint32_t threshold;  // a cell is 1 when a 32-bit draw falls below it
};

} // namespace

GeneratedBinary generateBlockyBinary(const BlockyMatrixSpec& spec) {
    if (spec.rows < 0 || spec.cols < 0 || spec.blockSize < 1 || spec.bandWidth < 1 || spec.scattered < 0 ||
        spec.fillMin < 0 || spec.fillMax > 1 || spec.fillMin > spec.fillMax)
        throw InputError("blocky generator: invalid specification");
    SplitMix rng{spec.seed};
    // A gap between grid slots keeps shapes from touching: touching shapes would merge into one
    // connected component of the thumbnail.
    const Index pitch = spec.blockSize + std::max<Index>(1, spec.blockSize / 8);
    const Index gridRows = spec.rows / pitch, gridCols = spec.cols / pitch;
    const std::int64_t slots = static_cast<std::int64_t>(gridRows) * gridCols;
    const int shapes = spec.rectangles + spec.triangles + spec.bands;
    if (shapes > slots)
        throw InputError("blocky generator: " + std::to_string(shapes) + " shapes of side " + std::to_string(spec.blockSize) +
                         " do not fit in " + std::to_string(spec.rows) + " x " + std::to_string(spec.cols));
    // Distinct grid slots by a partial Fisher-Yates over a sparse swap map (slots can be ~10^5).
    std::vector<std::int64_t> chosen;
    {
        std::vector<std::pair<std::int64_t, std::int64_t>> swaps;
        auto lookup = [&](std::int64_t i) {
            for (const auto& s : swaps) if (s.first == i) return s.second;
            return i;
        };
        for (int k = 0; k < shapes; ++k) {
            const std::int64_t j = k + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(slots - k)));
            const std::int64_t vj = lookup(j), vk = lookup(k);
            chosen.push_back(vj);
            swaps.erase(std::remove_if(swaps.begin(), swaps.end(), [&](auto& s) { return s.first == j || s.first == k; }),
                        swaps.end());
            swaps.push_back({j, vk});
        }
    }
    std::vector<PlantedShape> planted;
    for (int k = 0; k < shapes; ++k) {
        DenseRegion region;
        region.rowBegin = static_cast<Index>(chosen[k] / gridCols) * pitch;
        region.colBegin = static_cast<Index>(chosen[k] % gridCols) * pitch;
        region.rowEnd = region.rowBegin + spec.blockSize;
        region.colEnd = region.colBegin + spec.blockSize;
        if (k < spec.rectangles) {
            region.shape = RegionShape::Rectangle;
        } else if (k < spec.rectangles + spec.triangles) {
            region.shape = RegionShape::Triangle;
            region.corner = static_cast<TriangleCorner>(rng.below(4));
        } else {
            region.shape = RegionShape::Band;
            region.bandLow = -(spec.bandWidth / 2);
            region.bandHigh = region.bandLow + spec.bandWidth - 1;
        }
        const double fill = spec.fillMin + (spec.fillMax - spec.fillMin) * rng.uniform();
        planted.push_back({region, static_cast<std::uint32_t>(std::min(4294967295.0, fill * 4294967296.0))});
    }
    std::sort(planted.begin(), planted.end(), [](const PlantedShape& a, const PlantedShape& b) {
        return a.region.rowBegin != b.region.rowBegin ? a.region.rowBegin < b.region.rowBegin
                                                      : a.region.colBegin < b.region.colBegin;
    });

    // Scattered ones bucketed by row (counting sort), columns sorted within each row later.
    std::vector<Count> scatterPtr(static_cast<std::size_t>(spec.rows) + 1, 0);
    std::vector<Index> scatterRow(static_cast<std::size_t>(spec.scattered)), scatterCol(scatterRow.size());
    if (spec.scattered > 0 && (spec.rows == 0 || spec.cols == 0))
        throw InputError("blocky generator: scattered ones need a non-empty matrix");
    for (Count k = 0; k < spec.scattered; ++k) {
        scatterRow[k] = static_cast<Index>(rng.below(spec.rows));
        scatterCol[k] = static_cast<Index>(rng.below(spec.cols));
        ++scatterPtr[scatterRow[k] + 1];
    }
    for (Index r = 0; r < spec.rows; ++r) scatterPtr[r + 1] += scatterPtr[r];
    std::vector<Index> scatterSorted(scatterRow.size());
    {
        std::vector<Count> next(scatterPtr.begin(), scatterPtr.end() - 1);
        for (Count k = 0; k < spec.scattered; ++k) scatterSorted[next[scatterRow[k]]++] = scatterCol[k];
        scatterRow.clear();
        scatterRow.shrink_to_fit();
        scatterCol.clear();
        scatterCol.shrink_to_fit();
    }

    GeneratedBinary out;
    BinaryPattern& pattern = out.pattern;
    pattern.rows = spec.rows;
    pattern.cols = spec.cols;
    pattern.rowPtr.assign(static_cast<std::size_t>(spec.rows) + 1, 0);
    std::size_t expected = static_cast<std::size_t>(spec.scattered);
    for (const PlantedShape& p : planted) expected += static_cast<std::size_t>(p.region.cells() * (p.threshold / 4294967296.0));
    pattern.colIndex.reserve(expected + expected / 64 + 16);
    std::size_t firstShape = 0;
    for (Index row = 0; row < spec.rows; ++row) {
        const std::size_t rowStart = pattern.colIndex.size();
        while (firstShape < planted.size() && planted[firstShape].region.rowEnd <= row) ++firstShape;
        for (std::size_t s = firstShape; s < planted.size() && planted[s].region.rowBegin <= row; ++s) {
            const PlantedShape& p = planted[s];
            if (row >= p.region.rowEnd) continue;
            const ColumnSpan span = p.region.span(row);
            for (Index j = span.begin; j < span.end; ++j)
                if (static_cast<std::uint32_t>(rng.next()) < p.threshold) pattern.colIndex.push_back(j);
        }
        // Shapes in one grid row are visited by column, so their columns are already sorted.
        const std::size_t shapeEnd = pattern.colIndex.size();
        auto first = scatterSorted.begin() + scatterPtr[row], last = scatterSorted.begin() + scatterPtr[row + 1];
        std::sort(first, last);
        pattern.colIndex.insert(pattern.colIndex.end(), first, last);
        auto begin = pattern.colIndex.begin() + static_cast<std::ptrdiff_t>(rowStart);
        std::inplace_merge(begin, pattern.colIndex.begin() + static_cast<std::ptrdiff_t>(shapeEnd), pattern.colIndex.end());
        pattern.colIndex.erase(std::unique(begin, pattern.colIndex.end()), pattern.colIndex.end());
        pattern.rowPtr[row + 1] = pattern.nnz();
    }
    for (PlantedShape& p : planted) {
        p.region.ones = countRegionOnes(pattern, p.region);
        out.planted.push_back(p.region);
    }
    return out;
}

GeneratedBinary seedExampleBinary() {
    // The seed's figure 3 is not in the text; this layout satisfies every number the text gives:
    // 39 ones = rectangle 10 + triangle 9 + diagonal block 15 + residual 5, five stored zeros, so
    // COO 78 numbers, CSR 11 + 39 = 50, hybrid 13 shape numbers + 10 (zeros) + 10 (residual) = 33.
    GeneratedBinary out;
    DenseRegion band;
    band.shape = RegionShape::Band;
    band.rowBegin = 0, band.rowEnd = 6, band.colBegin = 0, band.colEnd = 7, band.bandLow = -1, band.bandHigh = 1;
    DenseRegion rect;
    rect.rowBegin = 0, rect.rowEnd = 4, rect.colBegin = 7, rect.colEnd = 10;
    DenseRegion tri;
    tri.shape = RegionShape::Triangle;
    tri.corner = TriangleCorner::LowerLeft;
    tri.rowBegin = 6, tri.rowEnd = 10, tri.colBegin = 0, tri.colEnd = 4;
    const std::vector<std::pair<Index, Index>> zeros = {{2, 2}, {4, 5}, {1, 8}, {3, 7}, {8, 1}};
    const std::vector<std::pair<Index, Index>> residual = {{4, 8}, {5, 9}, {7, 6}, {8, 8}, {9, 5}};
    std::vector<Index> rows, cols;
    for (const DenseRegion* region : {&band, &rect, &tri})
        for (Index i = region->rowBegin; i < region->rowEnd; ++i) {
            const ColumnSpan s = region->span(i);
            for (Index j = s.begin; j < s.end; ++j)
                if (std::find(zeros.begin(), zeros.end(), std::make_pair(i, j)) == zeros.end()) {
                    rows.push_back(i);
                    cols.push_back(j);
                }
        }
    for (const auto& [i, j] : residual) {
        rows.push_back(i);
        cols.push_back(j);
    }
    out.pattern = binaryPatternFromCoordinates(10, 10, rows, cols);
    for (DenseRegion* region : {&rect, &tri, &band}) {
        region->ones = countRegionOnes(out.pattern, *region);
        out.planted.push_back(*region);
    }
    return out;
}

} // namespace spyglass
