#include "powercheck.h"

#include "spyglass/convert.h"

#include <algorithm>
#include <cmath>

namespace spyglass::app {

template <typename T>
PowerCheck checkAgainstReference(const Matrix& matrix, const PowerIterationResult& result, const PartitionRunOptions& options) {
    PartitionRunOptions reference;
    reference.iterations = options.iterations;
    reference.warmup = options.warmup;
    const PowerIterationResult expected = powerIteration(partitionMatrix(toCsr<T>(matrix), 1), reference);
    PowerCheck check;
    check.ran = true;
    check.rayleigh = expected.rayleigh.back();
    check.rayleighDifference = std::abs(result.rayleigh.back() - check.rayleigh) / std::max(std::abs(check.rayleigh), 1e-300);
    for (std::size_t i = 0; i < expected.x.size(); ++i)
        check.xDifference = std::max(check.xDifference, std::abs(result.x[i] - expected.x[i]));
    // Only the summation order of the dot products (and of the GPU kernels' rows) differs; the error
    // it leaves grows at most about linearly with the iterations. Far above that, far below what a
    // missing halo entry does (it changes x in the third digit or earlier).
    check.bound = (sizeof(T) == 4 ? 1e-3 : 1e-9);
    return check;
}

template PowerCheck checkAgainstReference<float>(const Matrix&, const PowerIterationResult&, const PartitionRunOptions&);
template PowerCheck checkAgainstReference<double>(const Matrix&, const PowerIterationResult&, const PartitionRunOptions&);

} // namespace spyglass::app
