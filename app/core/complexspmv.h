#pragma once
// What the complex (c64, c128) SpMV paths of the method tabs and `spyglass-cli spmv` share: x is
// seeded with both parts random, so that a conjugated or transposed product cannot agree by accident;
// and a complex result is checked against the reference by the modulus of the difference.
#include "spyglass/matrix.h"

#include <complex>
#include <vector>

namespace spyglass::app {

// Both parts uniform in [-1, 1), from `seed`.
std::vector<std::complex<double>> seededComplexX(Index cols, unsigned seed);

// max |y - y_ref| / max |y_ref| (the modulus of each complex difference); infinity for a size mismatch.
double maxRelativeDifference(const std::vector<std::complex<double>>& y, const std::vector<std::complex<double>>& reference);

} // namespace spyglass::app
