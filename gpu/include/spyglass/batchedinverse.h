#pragma once
// Method E: inversion of a batch of many small square matrices by Gauss-Jordan elimination with
// full pivoting (seeds/004). One CPU reference (any order, also the test oracle), Spyglass's CUDA
// kernels (order 1..32) and cuBLAS baselines, all behind one call.
//
// Layout: a batch is `count` matrices of order n stored one after the other, each column-major
// (element (i,j) of matrix b at values[b*n*n + j*n + i]), the layout cuBLAS and Matrix Market
// arrays use. T is float, double, std::complex<float> or std::complex<double>.
#include "spyglass/measurement.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace spyglass {

enum class InverseBackend {
    Reference,  // plain C++ on the CPU
    Cuda,       // Spyglass's kernels
    Cublas      // NVIDIA cuBLAS batched routines (the vendor baseline)
};

enum class InverseKernel {
    Auto,              // the fastest measured choice for the order and type
    SeedSharedMemory,  // the seed exactly: K matrices per block, n x K threads, sm_a[K][n*n], sm_is, sm_js
    ThreadPerMatrix,   // one thread per matrix, the matrix in registers (n <= 8)
    ThreadPerMatrixPipelined,  // the same in persistent blocks, loads overlapped with compute (n <= 8)
    ThreadPerMatrixStaged,     // the same tiles, one buffer per block: more blocks overlap instead (n <= 8)
    ThreadPerMatrixTma,        // a pipeline per warp, tiles moved by the tensor-memory accelerator (n <= 8, sm_90)
    LaneGroupRows,     // one row per lane, a group of lanes per matrix, pivots by warp shuffles
    LaneEntries,       // two entries per lane, one warp per 8x8 (n <= 8): shortest latency, small batches
    CublasGetrfGetri,  // cublas<t>getrfBatched + cublas<t>getriBatched
    CublasMatinv       // cublas<t>matinvBatched (n <= 32)
};

const char* toString(InverseBackend backend);
const char* toString(InverseKernel kernel);
// The kernels a backend offers (Auto first for Cuda); used by the CLI, the GUI and the tests.
std::vector<InverseKernel> inverseKernelsOf(InverseBackend backend);
// Whether the kernel handles this order at all (e.g. ThreadPerMatrix only up to 8).
bool inverseKernelSupports(InverseKernel kernel, int n);

// Per-matrix status, like cuBLAS's info array: 0 = inverted; k > 0 = the pivot of elimination step k
// (1-based) was zero or tiny (|pivot| <= eps * max|a_ij|): singular or numerically singular;
// kInverseNonFiniteInput = the matrix holds NaN or Inf. A failed matrix's output is all NaN, so it is
// never mistaken for an inverse; the other matrices of the batch are unaffected. The Cublas backend
// applies the same rule to the pivots of cuBLAS's LU (k is then the LU step; see
// batchedinverse_status.h).
constexpr int kInverseNonFiniteInput = -1;
// Largest order the CUDA kernels and cublas<t>matinvBatched accept.
constexpr int kMaxGpuInverseOrder = 32;

struct InverseOptions {
    InverseBackend backend = InverseBackend::Reference;
    InverseKernel kernel = InverseKernel::Auto;  // ignored by Reference; Cublas: GetrfGetri or Matinv
    // Matrices per thread block for SeedSharedMemory (the seed's K) and ThreadPerMatrix[Pipelined]
    // (32 or 64; other values mean its default); 0 = chosen from n and the type.
    int matricesPerBlock = 0;
    // Checked between chunks (GPU) or every few thousand matrices (CPU); true -> CancelledError.
    const std::atomic<bool>* cancel = nullptr;
    // Cuda backend: the GPUs to split the batch over (docs/scale.md). Empty: the current GPU, the
    // batch in as few chunks as fit. Given (even one GPU): each takes an equal contiguous share and
    // streams it from page-locked host memory in chunks of streamChunk matrices (0: from a measured
    // copy model, 4-64 MB, spyglass/streamplan.h), copies overlapped with the kernels. Fewer of the
    // GPUs run when more are measured or modelled not to be faster (the run's streamNote says so).
    // Results are the same.
    std::vector<int> devices;
    std::int64_t streamChunk = 0;
    // GPU backends on one GPU: how the kernel (or cuBLAS call) is measured (measurement.h). The default
    // is the cold call and one warm call (two calls in all), for callers that want the result; the
    // GUI and the CLI ask for the benchmarks' 3 warm-up and 20 timed runs. The CPU reference is one
    // run by the steady clock.
    TimingOptions timing{0, 1};
};

struct InverseRunInfo {
    std::vector<int> info;            // per matrix, see kInverseNonFiniteInput
    InverseKernel kernelUsed = InverseKernel::Auto;
    int chunks = 1;                   // > 1: the batch did not fit the device and was split
    // The measurement engine's figure (measurement.h). One GPU: the first chunk's kernel (or cuBLAS
    // call) cold, warmed up and repeated, CUDA events, L2 flushed, cuBLAS's overwritten input restored
    // before each call; a batch in several chunks adds each later chunk's single warm run to the
    // median, min and max. Set-up, upload and download in its fields. CPU: one run, steady clock.
    Measurement timing;
    // One GPU or the CPU: timing.medianMs. Several GPUs (devices): the kernel times summed over them.
    double computeMs = 0;
    // GPU: before the first chunk (stream, device buffers and, for cuBLAS, its handle and pointer
    // arrays), by the host clock; inside totalMs, never inside computeMs. CPU: 0.
    double setupMs = 0;
    double totalMs = 0;               // end to end: allocation, host<->device copies, kernels
    std::string device;               // "CPU reference" or the GPU's name
    // Several GPUs (devices): how the batch was streamed (streams a GPU, chunk size and the copy model
    // it came from, NUMA nodes) and, when fewer GPUs ran than were asked for, how many and why
    // ("2 GPUs asked, 1 used: ..."); `device` names the count that ran. Empty otherwise.
    std::string streamNote;
    std::int64_t failedCount() const;      // info != 0
    std::int64_t nonFiniteCount() const;   // info == kInverseNonFiniteInput
};

// Inverts `count` matrices of order n from `input` into `output` (both host memory, count*n*n
// elements, may not overlap). Throws InputError for n < 1, n > 32 on a GPU backend, a kernel that
// does not support n, or null pointers with count > 0; BackendUnavailableError without a device;
// OutOfMemoryError when not even one chunk fits; CancelledError when cancelled.
template <typename T>
InverseRunInfo invertBatched(const T* input, T* output, int n, std::int64_t count, const InverseOptions& options = {});

// The CPU reference alone (also used by invertBatched for InverseBackend::Reference).
template <typename T>
void invertBatchedReference(const T* input, T* output, int* info, int n, std::int64_t count,
                            const std::atomic<bool>* cancel = nullptr);

// Accuracy of one inverse: ||A*X - I||_1 / (||A||_1 * ||X||_1 * eps(T)), computed in double.
// A correct backward-stable inverse gives a small multiple of n. NaN for matrices with info != 0.
template <typename T>
std::vector<double> inverseResiduals(const T* a, const T* inverse, const int* info, int n, std::int64_t count);
// Largest of inverseResiduals over the matrices with info == 0 (0 when there are none).
template <typename T>
double maxInverseResidual(const T* a, const T* inverse, const int* info, int n, std::int64_t count);

} // namespace spyglass
