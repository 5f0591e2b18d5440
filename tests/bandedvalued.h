#pragma once
// A valued test matrix for method D: the band of offsets -half..half, each cell kept with probability
// `fill`, plus `scattered` entries anywhere; values are integers in [2, 9] (never binary, and exact in
// every precision). mainBand() is the region a detector would report for it.
#include "spyglass/hybrid_regions.h"
#include "spyglass/matrix.h"

#include <algorithm>
#include <random>
#include <set>
#include <utility>

namespace bandedtesting {

inline spyglass::CooMatrix<double> bandPlusScattered(spyglass::Index n, spyglass::Index half, double fill, int scattered,
                                                      unsigned seed) {
    using spyglass::Index;
    std::mt19937 rng(seed);
    std::bernoulli_distribution keep(fill);
    std::uniform_int_distribution<int> value(2, 9);
    std::uniform_int_distribution<Index> anywhere(0, n - 1);
    std::set<std::pair<Index, Index>> cells;  // row-major, no duplicates
    for (Index r = 0; r < n; ++r)
        for (Index c = std::max<Index>(0, r - half); c <= std::min<Index>(n - 1, r + half); ++c)
            if (keep(rng)) cells.insert({r, c});
    for (int k = 0; k < scattered; ++k) cells.insert({anywhere(rng), anywhere(rng)});
    spyglass::CooMatrix<double> coo;
    coo.rows = coo.cols = n;
    for (const auto& [r, c] : cells) {
        coo.rowIndex.push_back(r);
        coo.colIndex.push_back(c);
        coo.values.push_back(value(rng));
    }
    return coo;
}

inline spyglass::DenseRegion mainBand(spyglass::Index rows, spyglass::Index cols, spyglass::Index half) {
    spyglass::DenseRegion band;
    band.shape = spyglass::RegionShape::Band;
    band.rowBegin = band.colBegin = 0;
    band.rowEnd = rows;
    band.colEnd = cols;
    band.bandLow = -half;
    band.bandHigh = half;
    return band;
}

} // namespace bandedtesting
