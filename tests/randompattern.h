#pragma once
// A seeded random binary pattern: every cell kept with the given probability. Shared by the hybrid
// detection and encoding suites (tst_hybrid_regions, tst_hybrid_parallel).
#include "spyglass/hybrid_regions.h"

#include <random>
#include <vector>

namespace randompattern {

inline spyglass::BinaryPattern randomPattern(std::mt19937& rng, spyglass::Index rows, spyglass::Index cols, double density) {
    std::vector<spyglass::Index> ri, ci;
    std::bernoulli_distribution keep(density);
    for (spyglass::Index i = 0; i < rows; ++i)
        for (spyglass::Index j = 0; j < cols; ++j)
            if (keep(rng)) ri.push_back(i), ci.push_back(j);
    return spyglass::binaryPatternFromCoordinates(rows, cols, ri, ci);
}

} // namespace randompattern
