#pragma once
// Launchers of the batched Jacobi SVD kernel (device pointers, host scalar types) and the cuSOLVER
// gesvdjBatched baseline. Used by batchedsvd_run.cpp and by bench_batched_svd. Every launch is checked.
#include "spyglass/batchedsvd.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace spyglass::cuda {

// Dynamic shared memory of one block (one matrix) of the Jacobi kernel.
std::size_t jacobiSvdSharedBytes(int m, int n, std::size_t elementBytes, std::size_t realBytes);

// The seed's mapping: one block per matrix, A and V in shared memory, the n/2 pairs of a Brent-Luk
// step each handled by a group of lanes (a power of two <= 32, one row per lane), dot products by
// warp-shuffle reduction, pair table in __constant__ memory, all sweeps in one launch.
// status/sweeps per matrix (int), offOrthogonality per matrix (real).
template <typename T>
void launchJacobiSvd(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps, SvdReal<T>* off, int m,
                     int n, std::int64_t count, double tolerance, int maxSweeps, cudaStream_t stream);

// cuSOLVER <t>gesvdjBatched (m, n <= 32) on a fixed batch. Holds the handle, params, workspace and
// the full m x m U, so that repeated runs time the library call alone. `a` is overwritten; `u` gets
// the thin m x n U; info as cuSOLVER reports it (0 = converged).
template <typename T>
class CusolverBatchedSvd {
public:
    CusolverBatchedSvd(int m, int n, int count, double tolerance, int maxSweeps, cudaStream_t stream);
    ~CusolverBatchedSvd();
    CusolverBatchedSvd(const CusolverBatchedSvd&) = delete;
    CusolverBatchedSvd& operator=(const CusolverBatchedSvd&) = delete;
    void run(T* a, T* u, SvdReal<T>* sigma, T* v, int* info);
    static std::size_t extraBytesPerMatrix(int m, int n);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace spyglass::cuda
