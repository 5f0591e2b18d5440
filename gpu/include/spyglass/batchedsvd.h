#pragma once
// Method C: singular value decomposition of a batch of many small m x n matrices (m >= n) by
// one-sided Jacobi rotations in Brent-Luk round-robin order (seeds/002). One CPU reference (also
// the test oracle), Spyglass's CUDA kernel (n <= 64) and two cuSOLVER baselines, gesvdjBatched
// (batched Jacobi, m, n <= 32) and gesvdaStridedBatched (approximate, through the Gram matrix, the
// fastest batched vendor path), all behind one call.
//
// Layout: a batch is `count` matrices stored one after the other, each column-major (element (i,j)
// of matrix b at a[b*m*n + j*m + i]). Results: U is m x n (thin, orthonormal columns), sigma has n
// real values in descending order, V is n x n unitary, A = U diag(sigma) V^H. T is float, double,
// std::complex<float> or std::complex<double>; complex matrices are rotated natively (complex
// rotations) unless SvdVariant::RealEmbedding asks for the seed's real 2m x 2n embedding.
#include "spyglass/measurement.h"

#include <atomic>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace spyglass {

enum class SvdBackend {
    Reference,  // plain C++ on the CPU
    Cuda,       // Spyglass's kernel
    Cusolver,        // NVIDIA cuSOLVER gesvdjBatched (the vendor's batched Jacobi, m, n <= 32)
    CusolverGesvda   // NVIDIA cuSOLVER gesvdaStridedBatched: approximate (eigen-decomposition of A^H A),
                     // no sweeps or tolerance; sigma and V accurate, U loses orthogonality as
                     // sigma_max / sigma_k grows. Its residual ||A - U S V^H||_F is reported per matrix.
};

enum class SvdStatus : int {
    Converged = 0,       // every column pair orthogonal within the tolerance
    NotConverged = 1,    // max sweeps reached; the result is the last iterate (still a valid factorisation)
    NonFiniteInput = 2   // NaN or Inf in the input: U, sigma, V are all NaN
};

// How the Cuda backend maps the Jacobi sweeps onto the GPU (a value other than Auto with another
// backend is an InputError). All follow the reference's iteration, so statuses and sweep counts
// agree with it, except RealEmbedding, which iterates on a different (2m x 2n real) matrix.
enum class SvdVariant {
    Auto,            // the fastest mapping for the shape (RegisterGroups when it fits, else BlockPerMatrix)
    BlockPerMatrix,  // seed mapping (1): one block per matrix, A and V in shared memory, one row per lane
    RegisterGroups,  // one block per matrix, a few lanes per column pair holding their rows in registers
    RegisterResident,  // real, n <= 16: W and V in a few lanes' registers for every sweep, every lane in every pair
    BlockPerPair,    // seed mapping (2): one block per column pair with 2m threads, the host steps the table
    RealEmbedding    // complex only, n <= 32, m <= 512: the seed's real [[Re,-Im],[Im,Re]] matrix, then Auto
};

const char* toString(SvdBackend backend);
const char* toString(SvdStatus status);
const char* toString(SvdVariant variant);

// Largest n (columns) of the CUDA kernel and of cuSOLVER's batched Jacobi.
constexpr int kMaxSvdColumns = 64;
constexpr int kMaxCusolverSvdSize = 32;
// The real embedding doubles both dimensions: 2n <= 64 columns, 2m <= 1024 rows.
constexpr int kMaxEmbeddedSvdColumns = kMaxSvdColumns / 2;
constexpr int kMaxEmbeddedSvdRows = 512;

template <typename T> struct SvdRealOf { using type = T; };
template <typename R> struct SvdRealOf<std::complex<R>> { using type = R; };
template <typename T> using SvdReal = typename SvdRealOf<T>::type;

struct SvdOptions {
    SvdBackend backend = SvdBackend::Reference;
    // A pair (i,j) counts as orthogonal when |a_i^H a_j| <= tol * ||a_i|| ||a_j||. 0 = m * eps(T),
    // about the rounding of one dot product; smaller values may never be reached.
    double tolerance = 0;
    int maxSweeps = 30;  // a sweep visits every pair once: n-1 (n even) or n (n odd) parallel steps
    SvdVariant variant = SvdVariant::Auto;  // Cuda backend only
    // Checked between chunks (GPU) or every few hundred matrices (CPU); true -> CancelledError.
    const std::atomic<bool>* cancel = nullptr;
    // CPU reference only: keep the convergence history (SvdRunInfo::sweepHistory) of the first this
    // many matrices. The GPU kernels keep only the last sweep's figure, so they leave it empty.
    std::int64_t historyMatrices = 0;
    // Cuda backend: the GPUs to split the batch over (docs/scale.md). Empty: the current GPU, the
    // batch in as few chunks as fit. Given (even one GPU): each takes an equal contiguous share and
    // streams it from page-locked host memory in chunks of streamChunk matrices (0: from a measured
    // copy model, 4-64 MB, spyglass/streamplan.h), copies overlapped with the kernels. Fewer of the
    // GPUs run when more are measured or modelled not to be faster (the run's streamNote says so).
    // Results are the same.
    std::vector<int> devices;
    std::int64_t streamChunk = 0;
    // Cuda backend: the batch this call is a share of (one process per GPU, docs/scale.md), 0: this
    // call's own count. The mappings' widths (lanes per pair) are chosen for it, so that a share runs
    // every matrix as the whole batch does and the results match the one-process run's bit for bit.
    std::int64_t widthBatch = 0;
    // GPU backends on one GPU: how the kernel (or cuSOLVER call) is measured (measurement.h). The default
    // is the cold call and one warm call (two calls in all), for callers that want the result; the
    // GUI and the CLI ask for the benchmarks' 3 warm-up and 20 timed runs. The CPU reference is one
    // run by the steady clock.
    TimingOptions timing{0, 1};
};

struct SvdRunInfo {
    std::vector<SvdStatus> status;    // per matrix
    std::vector<int> sweeps;          // per matrix: sweeps run, including the last (checking) one
    // Per matrix: the largest |a_i^H a_j| / (||a_i|| ||a_j||) met in the last sweep, before its
    // rotation (<= tolerance when converged). cuSOLVER does not report it: NaN there.
    std::vector<double> offOrthogonality;
    // Per matrix, for the first SvdOptions::historyMatrices of a CPU reference run (else empty): the
    // largest off-orthogonality of each sweep, measured before its rotations; sweeps[b] entries, the
    // last one equal to offOrthogonality[b].
    std::vector<std::vector<double>> sweepHistory;
    // cusolver-gesvda only (else empty): per matrix cuSOLVER's h_R_nrmF, the Frobenius norm of
    // A - U S V^H (NaN for NaN/Inf input). Computed by a second, untimed call (see computeMs).
    std::vector<double> vendorResidual;
    double tolerance = 0;             // the tolerance actually used (gesvda uses none)
    // The measurement engine's figure (measurement.h). One GPU: the first chunk's kernel (or cuSOLVER
    // call) cold, warmed up and repeated, CUDA events, L2 flushed, gesvdj's overwritten input restored
    // before each call; neither set-up, nor copies, nor gesvda's residual check are inside. A batch in
    // several chunks adds each later chunk's single warm run. CPU: one run, steady clock.
    Measurement timing;
    // One GPU or the CPU: timing.medianMs. Several GPUs (devices): the kernel times summed over them.
    double computeMs = 0;
    // GPU: allocation of the device buffers and the set-up of vendor handles, parameters and
    // workspaces (host clock), done once per run (and once more for a shorter last chunk); 0 on the CPU.
    double setupMs = 0;
    double totalMs = 0;               // end to end: set-up, host<->device copies, kernels, checks
    int chunks = 1;
    std::string device;               // "CPU reference" or the GPU's name
    // Several GPUs (devices): how the batch was streamed (streams a GPU, chunk size and the copy model
    // it came from, NUMA nodes) and, when fewer GPUs ran than were asked for, how many and why
    // ("2 GPUs asked, 1 used: ..."); `device` names the count that ran. Empty otherwise.
    std::string streamNote;
    std::string variant;              // the mapping that ran, e.g. "register-groups, 4 lanes per pair"
    std::int64_t notConvergedCount() const;
    std::int64_t nonFiniteCount() const;
};

// Decomposes `count` m x n matrices. a: count*m*n; u: count*m*n; sigma: count*n; v: count*n*n (all
// host memory). Throws InputError for m < n, n < 1, n > 64 (64 = kMaxSvdColumns), m > 1024, a cuSOLVER
// gesvdjBatched request beyond 32, a bad tolerance or sweep count, a negative historyMatrices, null pointers with count > 0, a variant with a
// backend other than Cuda, or a variant the shape or type does not allow (named in the message);
// BackendUnavailableError without a device; OutOfMemoryError when not even one chunk fits;
// CancelledError when cancelled; Error when cuSOLVER reports a wrong parameter (info < 0).
// SvdOptions::tolerance and maxSweeps do not apply to cusolver-gesvda (no iteration to stop); its
// status is Converged where cuSOLVER's info is 0 and the residual finite, else NotConverged.
template <typename T>
SvdRunInfo svdBatched(const T* a, T* u, SvdReal<T>* sigma, T* v, int m, int n, std::int64_t count,
                      const SvdOptions& options = {});

// The default tolerance for m rows of T: m * eps(T).
template <typename T> double defaultSvdTolerance(int m);

// SvdVariant::RegisterResident's pairs per step for m x n (n/2 rounded up to a power of two; its
// lanes per matrix are as many, 2 rows each), or 0 where it does not take the shape (n > 16, or
// m above twice that). Real types only.
int registerResidentPairs(int m, int n);

// Brent-Luk round-robin ordering for `columns` columns (odd counts get a phantom column `columns`,
// whose pairs are skipped): steps() parallel steps of pairsPerStep() disjoint pairs that together
// visit every pair once. pairs()[2*(step*pairsPerStep + p) + 0/1] is the pair (i, j), i < j.
class BrentLukOrdering {
public:
    explicit BrentLukOrdering(int columns);
    int columns() const { return m_columns; }
    int paddedColumns() const { return m_padded; }
    int steps() const { return m_padded - 1; }
    int pairsPerStep() const { return m_padded / 2; }
    const std::vector<std::uint8_t>& pairs() const { return m_pairs; }

private:
    int m_columns = 0, m_padded = 0;
    std::vector<std::uint8_t> m_pairs;
};

// Batches for tests, benchmarks and the CLI, deterministic for a seed. Random: entries uniform in
// [-1,1] (real and imaginary parts); RankDeficient: product of m x r and r x n random factors with
// r = max(1, n/2); Graded: random with column j scaled by 10^(-6 j / (n-1)) (fp32/c64) or
// 10^(-12 j / (n-1)) (fp64/c128), a wide but representable range of singular values;
// SonarSnapshots: m time snapshots (rows) of an n-sensor line array at half-wavelength spacing
// (columns) receiving d = clamp(n/4, 1, 4) plane waves of powers 10^(-k/4), k = 0..d-1, from
// directions u_k = sin(theta_k) at least one beamwidth (2/n) apart, plus white noise of power 0.01 per
// entry. Complex types get steering vectors exp(-i pi s u_k) and circular Gaussian amplitudes; real
// types a cosine of the same phase with a random offset (u_k > 0, as a real signal cannot tell u from
// -u), scaled to the same norm. So d singular values stand well above a noise floor.
enum class SvdBatchKind { Random, RankDeficient, Graded, SonarSnapshots };
// The number of sources of SonarSnapshots for n sensors.
int sonarSourceCount(int n);
const char* toString(SvdBatchKind kind);
// first: the first matrix returned, matrices [first, first + count) of the seed's stream (which draws
// matrix i after matrices 0..i-1); the ones before are drawn into a scratch matrix and dropped, so a
// share of a batch (one process per GPU) holds only its matrices and they equal the whole batch's.
template <typename T>
std::vector<T> generateSvdBatch(SvdBatchKind kind, int m, int n, std::int64_t count, std::uint64_t seed, std::int64_t first = 0);

// Accuracy of one batch, computed in double, maxima over matrices with status != NonFiniteInput.
struct SvdAccuracy {
    double reconstruction = 0;   // ||A - U S V^H||_F / ||A||_F (0 for A = 0)
    double uOrthogonality = 0;   // max |U^H U - I|
    double vOrthogonality = 0;   // max |V^H V - I|
    std::int64_t unsortedOrNegative = 0;  // matrices whose sigma is not descending and >= 0
};
template <typename T>
SvdAccuracy svdAccuracy(const T* a, const T* u, const SvdReal<T>* sigma, const T* v, int m, int n, std::int64_t count,
                        const std::vector<SvdStatus>* status = nullptr);

// The CPU reference alone (used by svdBatched for SvdBackend::Reference). tolerance must be > 0.
// sweepHistory, when given, receives the per-sweep off-orthogonality of its first size() matrices
// (its size is left as the caller set it; entries beyond count stay empty).
template <typename T>
void svdBatchedReference(const T* a, T* u, SvdReal<T>* sigma, T* v, int m, int n, std::int64_t count, double tolerance,
                         int maxSweeps, SvdStatus* status, int* sweeps, double* offOrthogonality,
                         const std::atomic<bool>* cancel = nullptr,
                         std::vector<std::vector<double>>* sweepHistory = nullptr);

} // namespace spyglass
