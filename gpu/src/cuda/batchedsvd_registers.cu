// Method C kernel, variant RegisterGroups: one block per matrix (A and V in shared memory as in the
// seed's mapping (1)), but each column pair of a Brent-Luk step gets a small group of lanes, each
// lane holding up to K rows of both columns in registers from the dot products to the rotation.
//
// Why: with one row per lane (BlockPerMatrix at m = 32: 32 lanes per pair) every step costs each
// warp the same fixed work per pair (5 shuffle rounds for 3-4 sums, the rotation angle with its
// divisions and square roots, constant loads, a 512-thread barrier) for only one row of arithmetic,
// and A's two columns are read twice (once for the sums, once to rotate). With 4 lanes x 8 rows the
// fixed work is shared by 8 pairs per warp and A is read once: about 63 instead of 180 warp
// instructions per pair and step for 32x32 complex64 (see docs/method-c-batchedsvd.md).
// Rows are staggered by the group's slot in its warp, so that for m = 32 the groups of one warp
// touch disjoint shared-memory banks whatever columns they hold.
#include "batchedsvd_block.cuh"
#include "batchedsvd_blocklaunch.cuh"
#include "batchedsvd_resident.cuh"  // kResidentHandOver
#include "spyglass/cuda/batchedsvd_device_api.h"
#include "spyglass/cuda/cudacheck.h"

#include <algorithm>
#include <complex>
#include <string>

namespace spyglass::cuda {

namespace {

using namespace svd;

constexpr int kMaxPadded = kMaxSvdColumns;
// The pair table of the padded n, (i, j) as the low and high byte of one 16-bit word: one constant
// load per pair (the groups of a warp read different pairs, so these loads are serialised).
__constant__ unsigned short c_pairWords[(kMaxPadded - 1) * (kMaxPadded / 2)];

constexpr int kMaxThreads = 512;       // as BlockPerMatrix: c128 needs its registers
constexpr int kMaxRowsPerLane = 16;    // the largest register array instantiated
// complex<double> with 16 rows needs 196 registers (at most 320 threads per block): 8 there (117).
int maxRowsPerLane(std::size_t elementBytes) { return elementBytes >= 16 ? 8 : kMaxRowsPerLane; }
constexpr int kTargetRowsPerLane = 8;  // the default: enough rows to share the fixed work of a pair

int paddedColumns(int n) { return n + (n % 2); }
int powerOfTwoAtLeast(int x) {
    int p = 1;
    while (p < x) p *= 2;
    return p;
}
int rowsPerLane(int m, int width) { return (m + width - 1) / width; }

// Kept apart from jacobiSvdKernel on purpose: K rows per lane in compile-time-indexed registers.
// HandedOverOnly: only the matrices the register-resident kernel handed over (their status says so).
template <typename S, int K, bool HandedOverOnly = false>
__global__ void jacobiSvdRegisterKernel(const S* __restrict__ a, S* __restrict__ u, RealOf<S>* __restrict__ sigma,
                                        S* __restrict__ v, int* __restrict__ status, int* __restrict__ sweepsOut,
                                        RealOf<S>* __restrict__ offOut, int m, int n, int width, RealOf<S> tol,
                                        int maxSweeps) {
    using R = RealOf<S>;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ int flag;
    const BlockMatrix<S> s = carveBlockMatrix<S>(smem, m, n);
    S* sa = s.sa;
    S* sv = s.sv;
    const std::size_t b = blockIdx.x;
    if constexpr (HandedOverOnly)
        if (status[b] != kResidentHandOver) return;  // the whole block: b is the block's
    if (!loadOrWriteNonFinite(a, s, b, u, sigma, v, status, sweepsOut, offOut, m, n, &flag)) return;
    const PairLanes g = pairLanesOf(n, width);
    // This lane's rows: lane + width * q for q = 0..used-1, taken in the order q = (k + slot) % used,
    // so that at any k the groups of a warp read different row blocks (different banks for m = 32).
    const int used = (m + width - 1) / width;
    const int slot = (threadIdx.x & 31) / width;
    int rows[K];
    unsigned rowBytes[K];  // each row's offset in a column, in bytes: one add per access from the column's start
#pragma unroll
    for (int k = 0; k < K; ++k) {
        rows[k] = k < used ? g.lane + width * ((k + slot) % used) : m;
        rowBytes[k] = static_cast<unsigned>(rows[k]) * sizeof(S);
    }
    const auto at = [&](char* column, int k) -> S& { return *reinterpret_cast<S*>(column + rowBytes[k]); };

    int sweeps = 0;
    R sweepMax = 0;
    bool converged = false;
    while (sweeps < maxSweeps) {
        ++sweeps;
        R myMax = 0;
        for (int step = 0; step < g.np - 1; ++step) {
            R pa = 0, pb = 0;
            S pc = zero<S>();
            S x[K], y[K];
            // The pair's columns of A and V, as byte addresses: indexing sa by i * m + row took two
            // integer instructions per access (a multiply-add, then a shift-add to bytes), 128 of the
            // ~700 SASS instructions of a step for 32x32 complex64; now one shift-add.
            char *ai = nullptr, *aj = nullptr, *vi = nullptr, *vj = nullptr;
            if (g.active) {
                const unsigned word = c_pairWords[step * g.pairsPerStep + g.pair];
                const int i = word & 0xffu, j = word >> 8;
                ai = reinterpret_cast<char*>(sa + i * m);
                aj = reinterpret_cast<char*>(sa + j * m);
                vi = reinterpret_cast<char*>(sv + i * n);
                vj = reinterpret_cast<char*>(sv + j * n);
#pragma unroll
                for (int k = 0; k < K; ++k) {
                    x[k] = zero<S>();
                    y[k] = zero<S>();
                    if (rows[k] < m) {
                        x[k] = at(ai, k);
                        y[k] = at(aj, k);
                    }
                    accumulateSquaredMagnitude(pa, x[k]);
                    accumulateSquaredMagnitude(pb, y[k]);
                    accumulateConjProduct(pc, x[k], y[k]);
                }
            }
            sumOverGroup(pa, pb, pc, width);
            R cs, sn;
            S e;
            if (pairRotationRefinedRoots(g.active, pa, pb, pc, tol, myMax, cs, sn, e)) {
#pragma unroll
                for (int k = 0; k < K; ++k) {
                    if (rows[k] < m) {
                        rotate(x[k], y[k], cs, sn, e);
                        at(ai, k) = x[k];
                        at(aj, k) = y[k];
                    }
                }
#pragma unroll
                for (int k = 0; k < K; ++k) {
                    if (rows[k] < n) {
                        S p = at(vi, k), q = at(vj, k);
                        rotate(p, q, cs, sn, e);
                        at(vi, k) = p;
                        at(vj, k) = q;
                    }
                }
            }
            __syncthreads();
        }
        sweepMax = blockSweepMax(s, g, myMax);
        if (sweepMax <= tol) {
            converged = true;
            break;
        }
    }
    finishBlockMatrix(s, b, u, sigma, v, status, sweepsOut, offOut, m, n, converged, sweeps, sweepMax, &flag);
}

template <typename S, int K, bool HandedOverOnly = false>
void launchWithRows(const S* a, S* u, RealOf<S>* sigma, S* v, int* status, int* sweeps, RealOf<S>* off, int m, int n,
                    std::int64_t count, RealOf<S> tol, int maxSweeps, int width, cudaStream_t stream) {
    const int threads = (paddedColumns(n) / 2 * width + 31) / 32 * 32;  // whole warps for the shuffles
    launchBlockJacobi<S>(jacobiSvdRegisterKernel<S, K, HandedOverOnly>, "batched SVD register-groups kernel", threads, a, u,
                         sigma, v, status, sweeps, off, m, n, count, width, tol, maxSweeps, stream);
}

} // namespace

bool registerGroupsFits(int m, int n, int lanesPerPair, std::size_t elementBytes) {
    const int w = lanesPerPair;
    if (w < 1 || w > 32 || (w & (w - 1)) != 0) return false;
    return paddedColumns(n) / 2 * w <= kMaxThreads && rowsPerLane(m, w) <= maxRowsPerLane(elementBytes);
}

int registerGroupsLanes(int m, int n, std::size_t elementBytes, std::int64_t count) {
    const int pairs = paddedColumns(n) / 2;
    // About kTargetRowsPerLane rows per lane, but at least a whole warp per block.
    const int preferred = std::min(32, std::max(powerOfTwoAtLeast((m + kTargetRowsPerLane - 1) / kTargetRowsPerLane),
                                                powerOfTwoAtLeast((32 + pairs - 1) / pairs)));
    int chosen = 0;
    if (registerGroupsFits(m, n, preferred, elementBytes)) chosen = preferred;
    else
        for (int w = 32; w >= 1 && chosen == 0; w /= 2)
            if (registerGroupsFits(m, n, w, elementBytes)) chosen = w;
    if (chosen == 0 || count <= 0) return chosen;
    // A small batch leaves most of the GPU idle with narrow groups (128 matrices are 128 blocks):
    // widen (fewer rows per lane, more warps per matrix) until the batch offers kWarpsPerSm warps
    // per SM, up to kMaxSmallBatchLanes. H100, 2026-11: 16 lanes were fastest for 128 matrices of
    // 16x16 and 32x32, 4 lanes for 10^4 (bench_batchedsvd --explore).
    constexpr int kWarpsPerSm = 16, kMaxSmallBatchLanes = 16;
    int device = 0, sms = 0;
    SPYGLASS_CUDA_CHECK(cudaGetDevice(&device));
    SPYGLASS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const std::int64_t target = static_cast<std::int64_t>(kWarpsPerSm) * sms;
    for (int w = chosen; w <= kMaxSmallBatchLanes; w *= 2) {
        if (!registerGroupsFits(m, n, w, elementBytes)) break;
        chosen = w;
        if (count * ((pairs * w + 31) / 32) >= target) break;
    }
    return chosen;
}

template <typename T>
void launchJacobiSvdRegisters(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps, SvdReal<T>* off,
                              int m, int n, std::int64_t count, double tolerance, int maxSweeps, int lanesPerPair,
                              cudaStream_t stream) {
    using S = typename DeviceScalar<T>::type;
    const int width = lanesPerPair > 0 ? lanesPerPair : registerGroupsLanes(m, n, sizeof(T), count);
    if (!registerGroupsFits(m, n, width, sizeof(T)))
        throw InputError("batched SVD register-groups: " + std::to_string(m) + " x " + std::to_string(n) + " with " +
                         std::to_string(width) + " lanes per pair needs more than " +
                         std::to_string(maxRowsPerLane(sizeof(T))) + " rows per lane or " + std::to_string(kMaxThreads) +
                         " threads (or the width is not a power of two <= 32)");
    if (count == 0) return;
    const BrentLukOrdering ordering(n);
    SPYGLASS_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_pairWords, ordering.pairs().data(), ordering.pairs().size(), 0,
                                                cudaMemcpyHostToDevice, stream));
    const DeviceSvdArgs<T> d = deviceSvdArgs(a, u, sigma, v, off, tolerance);
    const int rows = rowsPerLane(m, width);
    if (rows <= 1) launchWithRows<S, 1>(d.a, d.u, d.sigma, d.v, status, sweeps, d.off, m, n, count, d.tol, maxSweeps, width, stream);
    else if (rows <= 2) launchWithRows<S, 2>(d.a, d.u, d.sigma, d.v, status, sweeps, d.off, m, n, count, d.tol, maxSweeps, width, stream);
    else if (rows <= 4) launchWithRows<S, 4>(d.a, d.u, d.sigma, d.v, status, sweeps, d.off, m, n, count, d.tol, maxSweeps, width, stream);
    else if (rows <= 8) launchWithRows<S, 8>(d.a, d.u, d.sigma, d.v, status, sweeps, d.off, m, n, count, d.tol, maxSweeps, width, stream);
    else launchWithRows<S, 16>(d.a, d.u, d.sigma, d.v, status, sweeps, d.off, m, n, count, d.tol, maxSweeps, width, stream);
}

template <typename T>
void launchJacobiSvdRegistersHandedOver(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps,
                                        SvdReal<T>* off, int m, int n, std::int64_t count, double tolerance,
                                        int maxSweeps, cudaStream_t stream) {
    using S = typename DeviceScalar<T>::type;
    const int width = registerGroupsLanes(m, n, sizeof(T), 0);
    if (count == 0 || width == 0) return;
    const BrentLukOrdering ordering(n);
    SPYGLASS_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_pairWords, ordering.pairs().data(), ordering.pairs().size(), 0,
                                                cudaMemcpyHostToDevice, stream));
    const DeviceSvdArgs<T> d = deviceSvdArgs(a, u, sigma, v, off, tolerance);
    // The resident kernel's shapes (m <= 16) take at most 16 rows per lane at this width.
    const int rows = rowsPerLane(m, width);
    if (rows <= 2) launchWithRows<S, 2, true>(d.a, d.u, d.sigma, d.v, status, sweeps, d.off, m, n, count, d.tol, maxSweeps, width, stream);
    else if (rows <= 8) launchWithRows<S, 8, true>(d.a, d.u, d.sigma, d.v, status, sweeps, d.off, m, n, count, d.tol, maxSweeps, width, stream);
    else launchWithRows<S, 16, true>(d.a, d.u, d.sigma, d.v, status, sweeps, d.off, m, n, count, d.tol, maxSweeps, width, stream);
}

std::string autoJacobiSvdVariant(int m, int n, std::size_t elementBytes, std::int64_t count) {
    if (autoPicksRegisterResident(m, n, elementBytes, count)) return registerResidentDescription(m, n);
    const int width = registerGroupsLanes(m, n, elementBytes, count);
    if (width == 0) return std::string(toString(SvdVariant::BlockPerMatrix));
    return std::string(toString(SvdVariant::RegisterGroups)) + ", " + std::to_string(width) + " lanes x " +
           std::to_string(rowsPerLane(m, width)) + " rows per pair";
}

template <typename T>
std::string launchJacobiSvdAuto(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps, SvdReal<T>* off,
                                int m, int n, std::int64_t count, double tolerance, int maxSweeps, cudaStream_t stream,
                                std::int64_t widthBatch) {
    const std::int64_t batch = widthBatch > 0 ? widthBatch : count;
    if (autoPicksRegisterResident(m, n, sizeof(T), batch)) {
        launchJacobiSvdResident(a, u, sigma, v, status, sweeps, off, m, n, count, tolerance, maxSweeps, stream);
        return registerResidentDescription(m, n);
    }
    const int width = registerGroupsLanes(m, n, sizeof(T), batch);
    if (width == 0) launchJacobiSvd(a, u, sigma, v, status, sweeps, off, m, n, count, tolerance, maxSweeps, stream);
    else launchJacobiSvdRegisters(a, u, sigma, v, status, sweeps, off, m, n, count, tolerance, maxSweeps, width, stream);
    return autoJacobiSvdVariant(m, n, sizeof(T), batch);
}

#define SPYGLASS_INSTANTIATE_REGISTER_SVD(T)                                                                          \
    template void launchJacobiSvdRegisters<T>(const T*, T*, SvdReal<T>*, T*, int*, int*, SvdReal<T>*, int, int,      \
                                              std::int64_t, double, int, int, cudaStream_t);                         \
    template std::string launchJacobiSvdAuto<T>(const T*, T*, SvdReal<T>*, T*, int*, int*, SvdReal<T>*, int, int,    \
                                                std::int64_t, double, int, cudaStream_t, std::int64_t);         \
    template void launchJacobiSvdRegistersHandedOver<T>(const T*, T*, SvdReal<T>*, T*, int*, int*, SvdReal<T>*, int,  \
                                                        int, std::int64_t, double, int, cudaStream_t);
SPYGLASS_INSTANTIATE_REGISTER_SVD(float)
SPYGLASS_INSTANTIATE_REGISTER_SVD(double)
SPYGLASS_INSTANTIATE_REGISTER_SVD(std::complex<float>)
SPYGLASS_INSTANTIATE_REGISTER_SVD(std::complex<double>)

} // namespace spyglass::cuda
