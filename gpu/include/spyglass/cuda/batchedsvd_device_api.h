#pragma once
// Public but CUDA-bound: it includes CUDA headers, so only the CUDA backend (gpu/src/cuda) and the .cu
// benchmarks include it; every other public header stays CUDA-free.
// Launchers of the batched Jacobi SVD mappings (device pointers, host scalar types) and the cuSOLVER
// baselines gesvdjBatched and gesvdaStridedBatched. Used by batchedsvd_run.cpp and by bench_batchedsvd. Every launch is checked.
// All Jacobi launchers take the same outputs: u (count*m*n), sigma (count*n), v (count*n*n), and per
// matrix status (SvdStatus as int), sweeps and the last sweep's off-orthogonality.
#include "spyglass/batchedsvd.h"
#include "spyglass/error.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace spyglass::cuda {

// The shape, capacity and stream a multi-launch mapping's workspace was made for (BlockPerPair,
// RealEmbedding); checkCount refuses a run over more matrices than the workspace holds.
struct SvdWorkspaceShape {
    int m = 0, n = 0;
    std::int64_t capacity = 0;
    cudaStream_t stream = nullptr;
    void checkCount(std::int64_t count, const char* mapping) const {
        if (count > capacity)
            throw InputError(std::string("batched SVD ") + mapping + ": " + std::to_string(count) +
                             " matrices, workspace for " + std::to_string(capacity));
    }
};

// Dynamic shared memory of one block (one matrix) of the block-per-matrix kernels.
std::size_t jacobiSvdSharedBytes(int m, int n, std::size_t elementBytes, std::size_t realBytes);

// SvdVariant::BlockPerMatrix, the seed's mapping (1): one block per matrix, A and V in shared memory,
// the n/2 pairs of a Brent-Luk step each handled by a group of lanes (a power of two <= 32, one row
// per lane), dot products by warp-shuffle reduction, pair table in __constant__ memory, all sweeps
// in one launch.
template <typename T>
void launchJacobiSvd(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps, SvdReal<T>* off, int m,
                     int n, std::int64_t count, double tolerance, int maxSweeps, cudaStream_t stream);

// SvdVariant::RegisterGroups: one block per matrix as above, but a group of `lanesPerPair` lanes per
// pair, each lane holding up to 16 rows of both columns in registers between the dot products and
// the rotation. 0 = the default width for the shape (registerGroupsLanes).
// registerGroupsLanes: the default lanes per pair for `count` m x n matrices of elementBytes (about
// 8 rows per lane; wider when the batch is too small to fill the GPU; count 0 = a large batch, no
// device query), 0 when the shape is beyond this kernel (more than 16 rows per lane, 8 for
// complex<double>, or 512 threads); registerGroupsFits: whether an explicit width works.
int registerGroupsLanes(int m, int n, std::size_t elementBytes, std::int64_t count);
bool registerGroupsFits(int m, int n, int lanesPerPair, std::size_t elementBytes);
template <typename T>
void launchJacobiSvdRegisters(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps, SvdReal<T>* off,
                              int m, int n, std::int64_t count, double tolerance, int maxSweeps, int lanesPerPair,
                              cudaStream_t stream);

// SvdVariant::RegisterResident (real types): W and V of a matrix in the registers of H lanes, 2 rows
// each, for all sweeps (H = the pairs of a step, n/2 rounded up to a power of two; n <= 16, m <= 2H).
// registerResidentFits: whether the shape and type fit; autoPicksRegisterResident: whether Auto runs
// it (f32, a batch of at least 8 warps per SM); registerResidentDescription: its SvdRunInfo::variant.
bool registerResidentFits(int m, int n, std::size_t elementBytes, bool complex);
bool autoPicksRegisterResident(int m, int n, std::size_t elementBytes, std::int64_t count);
std::string registerResidentDescription(int m, int n);
template <typename T>
void launchJacobiSvdResident(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps, SvdReal<T>* off, int m,
                             int n, std::int64_t count, double tolerance, int maxSweeps, cudaStream_t stream);
// The register-groups kernel on the matrices the resident kernel handed over (status
// kResidentHandOver: a zero singular value, whose U column needs completing); the others are left
// as they are.
template <typename T>
void launchJacobiSvdRegistersHandedOver(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps,
                                        SvdReal<T>* off, int m, int n, std::int64_t count, double tolerance,
                                        int maxSweeps, cudaStream_t stream);

// SvdVariant::Auto for a real or complex type: RegisterResident where autoPicksRegisterResident,
// else RegisterGroups (registerGroupsLanes) when the shape fits it, else BlockPerMatrix. Returns the description of what ran (for SvdRunInfo::variant).
std::string autoJacobiSvdVariant(int m, int n, std::size_t elementBytes, std::int64_t count);
// widthBatch: the batch the width is chosen for, when `count` is one chunk of a larger request (so
// that chunking does not change the results); 0 = count.
template <typename T>
std::string launchJacobiSvdAuto(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps, SvdReal<T>* off,
                                int m, int n, std::int64_t count, double tolerance, int maxSweeps, cudaStream_t stream,
                                std::int64_t widthBatch = 0);

// SvdVariant::BlockPerPair, the seed's mapping (2): per Brent-Luk step one launch with one block per
// (matrix, column pair) and 2m threads (m for the rows of A, the rest for the rows of V), the two
// columns read from global memory, a, b, c reduced in shared memory; the host steps through the
// table (in __constant__ memory) and, after each sweep, reads how many matrices are still active.
// W lives in `u` and V in `v` during the sweeps; a last block-per-matrix pass sorts and finishes.
// Holds its per-matrix workspace so that repeated runs time the work alone.
template <typename T>
class BlockPerPairSvd {
public:
    // Workspace for up to `capacity` matrices; run() takes count <= capacity.
    BlockPerPairSvd(int m, int n, std::int64_t capacity, cudaStream_t stream);
    ~BlockPerPairSvd();
    BlockPerPairSvd(const BlockPerPairSvd&) = delete;
    BlockPerPairSvd& operator=(const BlockPerPairSvd&) = delete;
    void run(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps, SvdReal<T>* off, std::int64_t count,
             double tolerance, int maxSweeps);
    // Dynamic shared memory of one pair block (the two columns of A and V, the reduction scratch).
    static std::size_t pairSharedBytes(int m, int n);
    static std::size_t extraBytesPerMatrix(int m, int n);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

// SvdVariant::RealEmbedding (T complex): the seed's real 2m x 2n matrix [[Re A, -Im A], [Im A, Re A]]
// decomposed by the Auto real kernel; each singular value comes twice, and n complex singular
// vectors are taken from the 2n real ones by complex Gram-Schmidt (one warp per matrix). status,
// sweeps and off are those of the real iteration.
template <typename T>
class RealEmbeddingSvd {
public:
    // Workspace for up to `capacity` matrices; run() takes count <= capacity.
    RealEmbeddingSvd(int m, int n, std::int64_t capacity, cudaStream_t stream);
    ~RealEmbeddingSvd();
    RealEmbeddingSvd(const RealEmbeddingSvd&) = delete;
    RealEmbeddingSvd& operator=(const RealEmbeddingSvd&) = delete;
    // Returns the description of the real kernel that ran.
    // widthBatch as for launchJacobiSvdAuto.
    std::string run(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps, SvdReal<T>* off,
                    std::int64_t count, double tolerance, int maxSweeps, std::int64_t widthBatch = 0);
    static std::size_t extraBytesPerMatrix(int m, int n);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

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

// cuSOLVER <t>gesvdaStridedBatched (m >= n, rank n: the thin U, all n singular values) on a fixed
// batch: what a user reaches for when gesvdjBatched is slow (PyTorch's driver='gesvda'). It forms
// the Gram matrix, so it is approximate: sigma and V accurate, U orthogonal only to about
// eps (sigma_max / sigma_k)^2. Holds the handle and the workspace (queried and allocated once), so
// that repeated runs time the library call alone. `a` is read only.
template <typename T>
class CusolverGesvdaSvd {
public:
    CusolverGesvdaSvd(int m, int n, int count, cudaStream_t stream);
    ~CusolverGesvdaSvd();
    CusolverGesvdaSvd(const CusolverGesvdaSvd&) = delete;
    CusolverGesvdaSvd& operator=(const CusolverGesvdaSvd&) = delete;
    // info (device, count ints): 0 = converged, > 0 = not converged as cuSOLVER reports it.
    // residualNorms (host, count doubles) or nullptr: cuSOLVER's h_R_nrmF, ||A - U S V^H||_F per
    // matrix. Asking for it costs an extra pass and makes the call wait for the device (host output),
    // so the fastest call, the one to time, passes nullptr (as PyTorch does).
    void run(const T* a, T* u, SvdReal<T>* sigma, T* v, int* info, double* residualNorms = nullptr);
    std::size_t workspaceBytes() const;
    // An estimate for planning chunks (the exact size is known only after the query).
    static std::size_t extraBytesPerMatrix(int m, int n);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

// Throws Error naming the first matrix whose info is negative (a parameter cuSOLVER rejected);
// `info` is the host copy of count values. Returns how many matrices report info > 0.
std::int64_t checkCusolverSvdInfo(const int* info, std::int64_t count, const char* routine);

} // namespace spyglass::cuda
