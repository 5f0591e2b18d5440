#pragma once
// A binary test matrix with hand-planted dense shapes: rectangles, a triangle of each of the four
// corners and bands with off-centre offsets (one entirely above the diagonal, one below), each
// filled to ~90 % (seeded), plus scattered ones. Used by the GUI suites that check the Dense
// regions tab finds, draws and multiplies them.
#include "spyglass/hybrid_regions.h"
#include "spyglass/matrixmarket.h"

#include <random>
#include <string>
#include <vector>

namespace plantedtesting {

struct Planted {
    spyglass::Matrix matrix;
    std::vector<spyglass::DenseRegion> shapes;
};

// A region: rows [r0, r1), columns [c0, c1), the triangle's corner, the band's offsets.
inline spyglass::DenseRegion region(spyglass::RegionShape shape, spyglass::Index r0, spyglass::Index r1, spyglass::Index c0,
                                    spyglass::Index c1, spyglass::TriangleCorner corner = spyglass::TriangleCorner::LowerLeft,
                                    spyglass::Index low = 0, spyglass::Index high = 0) {
    spyglass::DenseRegion r;
    r.shape = shape;
    r.corner = corner;
    r.rowBegin = r0, r.rowEnd = r1, r.colBegin = c0, r.colEnd = c1;
    r.bandLow = low, r.bandHigh = high;
    return r;
}

// Whether (i, j) lies in one of the regions.
inline bool insideAnyRegion(const std::vector<spyglass::DenseRegion>& regions, spyglass::Index i, spyglass::Index j) {
    for (const spyglass::DenseRegion& r : regions) {
        const spyglass::ColumnSpan s = r.span(i);
        if (j >= s.begin && j < s.end) return true;
    }
    return false;
}

inline spyglass::DenseRegion shape(spyglass::RegionShape kind, int row, int col, int h, int w) {
    spyglass::DenseRegion r;
    r.shape = kind;
    r.rowBegin = row, r.rowEnd = row + h, r.colBegin = col, r.colEnd = col + w;
    return r;
}

inline Planted plantedBinary(unsigned seed = 7) {
    using namespace spyglass;
    const int n = 1400;
    Planted p;
    p.shapes.push_back(shape(RegionShape::Rectangle, 40, 60, 150, 210));
    p.shapes.push_back(shape(RegionShape::Rectangle, 900, 1100, 200, 160));
    const int tri[4][2] = {{300, 400}, {300, 700}, {560, 400}, {560, 700}};
    for (int c = 0; c < 4; ++c) {
        DenseRegion t = shape(RegionShape::Triangle, tri[c][0], tri[c][1], 180, 180);
        t.corner = static_cast<TriangleCorner>(c);
        p.shapes.push_back(t);
    }
    DenseRegion above = shape(RegionShape::Band, 820, 60, 400, 420);
    above.bandLow = 6, above.bandHigh = 17;  // off-centre: every diagonal right of the box's main one
    p.shapes.push_back(above);
    DenseRegion below = shape(RegionShape::Band, 40, 1000, 380, 360);
    below.bandLow = -20, below.bandHigh = -9;
    p.shapes.push_back(below);

    std::mt19937 rng(seed);
    std::bernoulli_distribution keep(0.9);
    std::vector<std::vector<bool>> set(n, std::vector<bool>(n, false));
    for (const DenseRegion& r : p.shapes)
        for (Index row = r.rowBegin; row < r.rowEnd; ++row) {
            const ColumnSpan s = r.span(row);
            for (Index col = s.begin; col < s.end; ++col) set[row][col] = keep(rng);
        }
    std::uniform_int_distribution<int> any(0, n - 1);
    for (int k = 0; k < 3000; ++k) set[any(rng)][any(rng)] = true;
    p.matrix.rows = p.matrix.cols = n;
    p.matrix.field = Field::Pattern;
    for (int row = 0; row < n; ++row)
        for (int col = 0; col < n; ++col)
            if (set[row][col]) {
                p.matrix.rowIndex.push_back(row);
                p.matrix.colIndex.push_back(col);
            }
    return p;
}

// Cells of `a`'s shape that are also `b`'s.
inline spyglass::Count sharedCells(const spyglass::DenseRegion& a, const spyglass::DenseRegion& b) {
    spyglass::Count shared = 0;
    for (spyglass::Index row = std::max(a.rowBegin, b.rowBegin); row < std::min(a.rowEnd, b.rowEnd); ++row) {
        const spyglass::ColumnSpan sa = a.span(row), sb = b.span(row);
        shared += std::max<spyglass::Index>(0, std::min(sa.end, sb.end) - std::max(sa.begin, sb.begin));
    }
    return shared;
}

} // namespace plantedtesting
