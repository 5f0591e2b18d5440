#pragma once
// The spy view's picture: the entries of a window of the matrix binned into a width x height grid.
// One pass over the entries, so a 100 M-entry matrix bins in well under a second.
#include "spyglass/matrix.h"

#include <cstdint>
#include <vector>

namespace spyglass {

struct MatrixWindow {  // half-open ranges in matrix coordinates (doubles so that zoom can be fractional)
    double rowBegin = 0, rowEnd = 0;
    double colBegin = 0, colEnd = 0;
};

struct DensityImage {
    int width = 0, height = 0;
    std::vector<std::uint32_t> counts;  // height rows of width bins: entries falling in each bin
    std::vector<double> cellsPerBin;    // per bin: matrix cells it covers (to turn counts into density)
    std::uint32_t maxCount = 0;
    double density(int x, int y) const;  // counts / cells, 0..1
};

// Bins the symmetry-expanded entries of matrix inside window. width, height >= 1.
DensityImage renderDensity(const Matrix& matrix, const MatrixWindow& window, int width, int height);

} // namespace spyglass
