#pragma once
// What the complex (c64, c128) SpMV paths of the method tabs and `spyglass-cli spmv` share: the hybrid
// kernels take real values only so far (the diagonal formats and cuSPARSE CSR multiply complex values
// on the GPU), so a complex hybrid multiplies on the CPU reference and a GPU backend is refused by
// this one sentence (never by dropping the imaginary part); x is seeded with
// both parts random, so that a conjugated or transposed product cannot agree by accident; and a
// complex result is checked against the reference by the modulus of the difference.
#include "spyglass/matrix.h"

#include <complex>
#include <vector>

namespace spyglass::app {

inline constexpr const char* kComplexNotOnGpu =
    "complex values: the hybrid GPU kernels take real values so far (the CPU reference multiplies them)";

// Both parts uniform in [-1, 1), from `seed`.
std::vector<std::complex<double>> seededComplexX(Index cols, unsigned seed);

// max |y - y_ref| / max |y_ref| (the modulus of each complex difference); infinity for a size mismatch.
double maxRelativeDifference(const std::vector<std::complex<double>>& y, const std::vector<std::complex<double>>& reference);

} // namespace spyglass::app
