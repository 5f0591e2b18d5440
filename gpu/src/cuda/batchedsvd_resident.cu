// Launcher of the register-resident Jacobi SVD (batchedsvd_resident.cuh): real types, n <= 16, and
// m no more than twice the pairs of a step (so that L = H lanes of 2 rows hold every row of W and V).
#include "batchedsvd_resident.cuh"
#include "spyglass/cuda/batchedsvd_device_api.h"
#include "spyglass/cuda/cudacheck.h"

#include <algorithm>
#include <string>

namespace spyglass::cuda {

namespace {
using namespace svd;

constexpr int kRowsPerLane = 2;  // registerResidentPairs assumes it

template <typename S, int H>
void launchPairs(const S* a, S* u, RealOf<S>* sigma, S* v, int* status, int* sweeps, RealOf<S>* off, int m, int n,
                 std::int64_t count, RealOf<S> tol, int maxSweeps, cudaStream_t stream) {
    // 5 blocks of 128 per SM at 16x16 (at most 102 registers): 0.260 ms for 10^4 f32 on the H200,
    // against 0.307 ms with the compiler's own choice (134 registers, 3 blocks).
    constexpr int kMinBlocks = H == 8 ? 5 : 1;
    const long long blocks = (count * H + kResidentThreads - 1) / kResidentThreads;
    jacobiSvdResidentKernel<S, H, kRowsPerLane, H, kMinBlocks>
        <<<static_cast<unsigned>(blocks), kResidentThreads, 0, stream>>>(a, u, sigma, v, status, sweeps, off, m, n, count,
                                                                       tol, maxSweeps);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}
} // namespace

bool registerResidentFits(int m, int n, std::size_t elementBytes, bool complex) {
    return !complex && (elementBytes == 4 || elementBytes == 8) && registerResidentPairs(m, n) > 0;
}

bool autoPicksRegisterResident(int m, int n, std::size_t elementBytes, std::int64_t count) {
    // f32 only (measured there), and a batch that gives the GPU at least 8 warps per SM: below it
    // the wider register groups of a small batch win (128 x 16x16 use 16 lanes per pair).
    if (elementBytes != 4 || registerResidentPairs(m, n) == 0 || count <= 0) return false;
    int device = 0, sms = 0;
    SPYGLASS_CUDA_CHECK(cudaGetDevice(&device));
    SPYGLASS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return count * registerResidentPairs(m, n) >= static_cast<std::int64_t>(8) * 32 * sms;
}

std::string registerResidentDescription(int m, int n) {
    const int pairs = registerResidentPairs(m, n);
    return std::string(toString(SvdVariant::RegisterResident)) + ", " + std::to_string(pairs) + " lanes x " +
           std::to_string(kRowsPerLane) + " rows per matrix";
}

template <typename T>
void launchJacobiSvdResident(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps, SvdReal<T>* off, int m,
                             int n, std::int64_t count, double tolerance, int maxSweeps, cudaStream_t stream) {
    constexpr bool complex = !std::is_same_v<T, SvdReal<T>>;
    if (!registerResidentFits(m, n, sizeof(T), complex))
        throw InputError("batched SVD register-resident: real matrices with n <= 16 and m <= n rounded up to a power of two"
                         " (at least 2); got " + std::to_string(m) + " x " + std::to_string(n) +
                         (complex ? " complex" : ""));
    if (count == 0) return;
    if constexpr (!complex) {
        const DeviceSvdArgs<T> d = deviceSvdArgs(a, u, sigma, v, off, tolerance);
        switch (registerResidentPairs(m, n)) {
        case 1: launchPairs<T, 1>(d.a, d.u, d.sigma, d.v, status, sweeps, d.off, m, n, count, d.tol, maxSweeps, stream); break;
        case 2: launchPairs<T, 2>(d.a, d.u, d.sigma, d.v, status, sweeps, d.off, m, n, count, d.tol, maxSweeps, stream); break;
        case 4: launchPairs<T, 4>(d.a, d.u, d.sigma, d.v, status, sweeps, d.off, m, n, count, d.tol, maxSweeps, stream); break;
        default: launchPairs<T, 8>(d.a, d.u, d.sigma, d.v, status, sweeps, d.off, m, n, count, d.tol, maxSweeps, stream); break;
        }
        // Matrices with a zero singular value need U completed (finishBlockMatrix): the register
        // groups redo those, and only those, from the input.
        launchJacobiSvdRegistersHandedOver(a, u, sigma, v, status, sweeps, off, m, n, count, tolerance, maxSweeps, stream);
    }
}

#define SPYGLASS_INSTANTIATE_RESIDENT_SVD(T)                                                                          \
    template void launchJacobiSvdResident<T>(const T*, T*, SvdReal<T>*, T*, int*, int*, SvdReal<T>*, int, int,       \
                                             std::int64_t, double, int, cudaStream_t);
SPYGLASS_INSTANTIATE_RESIDENT_SVD(float)
SPYGLASS_INSTANTIATE_RESIDENT_SVD(double)
SPYGLASS_INSTANTIATE_RESIDENT_SVD(std::complex<float>)
SPYGLASS_INSTANTIATE_RESIDENT_SVD(std::complex<double>)

} // namespace spyglass::cuda
