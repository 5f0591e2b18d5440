#pragma once
// The GPU half of the format comparison, behind a CUDA-free interface: each trial uploads one format
// (timed), runs warm-up + timed SpMVs with CUDA events through the benchmark harness, and returns the
// median, the bytes and the y of the last run. Defined in src/cuda/formatcomparison_trials.cu; the
// CUDA-less build's stubs (src/nocuda) throw BackendUnavailableError. Device allocations past the
// memory (or the cap) throw OutOfMemoryError, which the comparison turns into that row's reason.
#include "spyglass/bitflag.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"
#include "spyglass/measurement.h"
#include "spyglass/segdia.h"

#include <string>
#include <vector>

namespace spyglass::compare_detail {

template <typename T>
struct Trial {
    double stageMs = 0;          // host-side preparation of the device arrays (hybrid tiles), added to build
    double uploadMs = 0;         // allocation + host-to-device copies (+ library setup for cuSPARSE)
    Measurement time;            // the SpMV by the measurement engine: cold first call apart, then the median
    std::size_t deviceBytes = 0; // the format's arrays on the device
    double bytesMoved = 0;       // the arrays, x once and y once
    std::vector<T> y;            // result of the last timed run
    std::string note;            // kernel facts (e.g. the bit-flag group width)
};

struct TrialRuns {
    int warmup = 3, repeats = 20;
};

// Creates the context and a cuSPARSE handle once, so that the first trial's upload does not carry
// the library's start-up.
void prepareGpu();
// Device-to-device copy bandwidth, read + write, GB/s (median of timed cudaMemcpy of up to 256 MiB).
double gpuCopyBandwidth();

template <typename T> Trial<T> gpuCsrTrial(const CsrMatrix<T>& a, const std::vector<T>& x, const TrialRuns& runs);
template <typename T> Trial<T> gpuDiaTrial(const DiaMatrix<T>& a, const std::vector<T>& x, const TrialRuns& runs);
template <typename T> Trial<T> gpuSegmentedDiaTrial(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x, const TrialRuns& runs);
template <typename T> Trial<T> gpuHybridTrial(const HybridBinaryMatrix& a, const std::vector<T>& x, const TrialRuns& runs);
template <typename T> Trial<T> gpuHybridValuedTrial(const HybridValuedMatrix<T>& a, const std::vector<T>& x, const TrialRuns& runs);
template <typename T> Trial<T> gpuBitFlagTrial(const BitFlagMatrix<T>& a, const std::vector<T>& x, const TrialRuns& runs);

// The explicit instantiations of the trials above for T, one list for the CUDA file and its stub.
#define SPYGLASS_FORMATCOMPARISON_TRIALS(T)                                                                          \
    template Trial<T> gpuCsrTrial(const CsrMatrix<T>&, const std::vector<T>&, const TrialRuns&);                     \
    template Trial<T> gpuDiaTrial(const DiaMatrix<T>&, const std::vector<T>&, const TrialRuns&);                     \
    template Trial<T> gpuSegmentedDiaTrial(const SegmentedDiaMatrix<T>&, const std::vector<T>&, const TrialRuns&);   \
    template Trial<T> gpuHybridTrial(const HybridBinaryMatrix&, const std::vector<T>&, const TrialRuns&);            \
    template Trial<T> gpuHybridValuedTrial(const HybridValuedMatrix<T>&, const std::vector<T>&, const TrialRuns&);  \
    template Trial<T> gpuBitFlagTrial(const BitFlagMatrix<T>&, const std::vector<T>&, const TrialRuns&);

// Complex values (c64, c128) have GPU trials in the formats whose kernels take them: cuSPARSE CSR,
// plain DIA, segmented DIA (with HDIA) and the valued hybrid; the binary hybrid and bit-flag kernels
// take real values.
#define SPYGLASS_FORMATCOMPARISON_COMPLEX_TRIALS(T)                                                                \
    template Trial<T> gpuCsrTrial(const CsrMatrix<T>&, const std::vector<T>&, const TrialRuns&);                   \
    template Trial<T> gpuDiaTrial(const DiaMatrix<T>&, const std::vector<T>&, const TrialRuns&);                   \
    template Trial<T> gpuSegmentedDiaTrial(const SegmentedDiaMatrix<T>&, const std::vector<T>&, const TrialRuns&); \
    template Trial<T> gpuHybridValuedTrial(const HybridValuedMatrix<T>&, const std::vector<T>&, const TrialRuns&);

} // namespace spyglass::compare_detail
