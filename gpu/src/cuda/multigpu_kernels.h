#pragma once
// The vector steps of the partitioned power iteration: each rank's three dot products (deterministic:
// a fixed grid, partial sums per block, one block sums the partials in order) and the scaling that
// turns y into the rank's share of the next x, reading the norm from device memory so that no
// iteration waits for the host.
#include "spyglass/matrix.h"

#include <cuda_runtime.h>

namespace spyglass::cuda {

constexpr int kPowerDotBlocks = 256;  // partial sums per rank: 3 * kPowerDotBlocks doubles

// dots[0] = y'y, dots[1] = x'y, dots[2] = x'x over n rows (x: the rank's own share), in double.
template <typename T>
void launchPowerDots(const T* y, const T* x, Index n, double* partial, double* dots, cudaStream_t stream);
// total[c] = sum over parts p (in order) of triples[3 p + c].
void launchSumTriples(const double* triples, int parts, double* total, cudaStream_t stream);
// The fused step's (DeviceSegmentedDia::powerStep) block sums: dots[c] = sum over blocks b (in order) of
// blockDots[3 b + c]; with scale and rayleigh given (a single rank), also what launchPowerFinish does.
void launchSumDots(const double* blockDots, int blocks, double* dots, double* scale, double* rayleigh, cudaStream_t stream);
// After the all-reduce of a fused step: *scale = 1 / sqrt(dots[0]) (what the next step multiplies by),
// *rayleigh = dots[1] / dots[2].
void launchPowerFinish(const double* dots, double* scale, double* rayleigh, cudaStream_t stream);
// x[i] = y[i] * (1 / sqrt(dots[0])); rayleigh (when not null) = dots[1] / dots[2].
template <typename T>
void launchPowerScale(const T* y, T* x, Index n, const double* dots, double* rayleigh, cudaStream_t stream);

} // namespace spyglass::cuda
