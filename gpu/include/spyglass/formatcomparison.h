#pragma once
// "Which format for my matrix?": every SpMV format Spyglass has, measured on one matrix and one x in
// one run, against cuSPARSE CSR. Per format: build time on the host, bytes on the device, padding,
// upload time, the median of warm SpMV runs (benchmark harness: warm-up, repeats, median; CUDA events
// on the GPU, steady_clock on the CPU), GB/s and the fraction of the copy bandwidth measured in the
// same run, the largest difference from the reference y, and the ratio to CSR. Formats that cannot
// run on this matrix say why. The recommendation is the fastest measured row whose y agrees with the
// reference: measured, never chosen by a rule.
// Without a CUDA device (or with useGpu false) every row runs on the CPU reference and the result
// says so (onGpu false, each row's backend "CPU reference").
#include "spyglass/hybrid_regions.h"
#include "spyglass/matrix.h"
#include "spyglass/measurement.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace spyglass {

enum class SpmvFormat {
    Csr,                  // cuSPARSE CSR on the GPU (the baseline), plain CSR on the CPU
    Dia,                  // plain DIA (Bell & Garland)
    Hdia,                 // equal row groups, no merging
    SegmentedDia,         // method B, remainder Auto
    SegmentedDiaNoRemainder,  // method B, remainder Off (the seed's pure DIA)
    HybridBinary,         // method D, binary matrices only (regions stored by their zeros)
    HybridValued,         // method D on any other real matrix (regions' values stored densely)
    BitFlag,              // method A, row-major flags
};
const char* toString(SpmvFormat format);  // "CSR", "plain DIA", "HDIA", "segmented DIA", ...
const char* formatKey(SpmvFormat format); // "csr", "dia", "hdia", "segdia", "segdia-off", "hybrid",
                                          // "hybrid-valued", "bitflag"
std::vector<SpmvFormat> allSpmvFormats();

struct FormatComparisonOptions {
    bool useGpu = true;      // false: the CPU reference even where a device is present
    int warmup = 3, repeats = 20;          // GPU runs
    int cpuWarmup = 1, cpuRepeats = 5;     // CPU runs (each a whole SpMV on one core)
    Index segmentRows = 1024;              // rows per segment (HDIA, segmented DIA without remainder)
    // The segmented-DIA row's segment length: chosen per matrix by the builder (kChooseSegmentThreshold)
    // unless this is false, when it takes segmentRows too.
    bool chooseSegmentRows = true;
    // Plain DIA, HDIA and segmented DIA without remainder store every diagonal a row group touches
    // whole; past these limits their rows say why instead of allocating (slots = diagonals x rows).
    Count maxDiaSlots = Count(1) << 28;
    double maxDiaPadding = 32;             // slots per nonzero
    // Bit flags take rows x ceil(cols / 64) words whatever the nonzeros: past this the row says why.
    std::size_t maxBitFlagBytes = std::size_t(1) << 30;
    // Method D needs its dense regions: the caller passes the detector (spyglass_detect's
    // detectDenseRegions, kept out of this library). Empty: the hybrid rows say "no region detector".
    // Binary matrices run the binary encoding, any other real matrix the valued one, both detected on
    // the matrix's pattern.
    std::function<std::vector<DenseRegion>(const BinaryPattern&)> findDenseRegions;
    const std::atomic<bool>* cancel = nullptr;  // polled between steps: CancelledError
    // Fraction done (0..1) and the step starting, from the calling thread.
    std::function<void(double, const std::string&)> progress;
};

struct FormatRow {
    SpmvFormat format = SpmvFormat::Csr;
    std::string name;           // "cuSPARSE CSR", "segmented DIA (remainder off)", ...
    bool applicable = false;    // false: not run; reason says why
    std::string reason;         // why not applicable, or why it failed (e.g. "GPU out of memory: ...")
    std::string backend;        // where it ran: "cuSPARSE", "CUDA", "CPU reference"
    std::string note;           // format facts: diagonals, segments, remainder, fallback ...
    double buildMs = 0;         // host: from CSR/COO to the format's arrays
    double uploadMs = 0;        // host to device, allocation included (0 on the CPU)
    std::size_t bytes = 0;      // the format's arrays as stored (on the device, or in host memory on the CPU)
    double padding = 0;         // stored slots / nonzeros for the DIA kinds (1 = none), 0 where none is stored
    Measurement spmv;           // by the measurement engine: the median of warm runs, the cold first call apart (GPU)
    double bytesMoved = 0;      // what one SpMV must read and write at least (the arrays, x, y)
    double gbPerSecond = 0;
    double copyFraction = 0;    // gbPerSecond / the copy bandwidth of the run
    double maxRelativeDifference = 0;  // max_i |y_i - ref_i| / max_i |ref_i|
    double errorRatio = 0;      // max_i |y_i - ref_i| / bound_i, bound_i = 2 n_i eps sum_j |a_ij x_j|: <= 1 agrees
    bool agrees = false;
    double speedupOverCsr = 0;  // CSR median / this median
    double bytesOverCsr = 0;    // this row's bytes / CSR's
};

struct FormatComparison {
    Index rows = 0, cols = 0;
    Count nonzeros = 0;
    std::string precision;      // "f32" or "f64"
    bool binary = false;
    bool onGpu = false;
    std::string device;         // "NVIDIA H100 80GB HBM3" or "CPU reference backend (no CUDA device: ...)"
    double copyBandwidthGBs = 0;  // device-to-device (or host memcpy) read + write, measured in this run
    std::vector<FormatRow> results;  // one per format, in allSpmvFormats() order
    int pick = -1;              // index into results; -1 when nothing agreed
    std::string pickReason;     // "segmented DIA: 2.3x cuSPARSE CSR at 93 % of copy bandwidth, 1.4x fewer bytes"
    const FormatRow* picked() const { return pick >= 0 ? &results[std::size_t(pick)] : nullptr; }
};

// The matrix as read (symmetry is expanded, pattern entries are 1). x must have cols entries
// (InputError). T: float or double for a real matrix; std::complex<float> or std::complex<double> for
// a complex one (a real T for it: InputError). On a GPU a complex comparison runs cuSPARSE CSR, plain
// DIA, HDIA, segmented DIA and the valued hybrid; the bit-flag row says why not (real values only).
template <typename T>
FormatComparison compareSpmvFormats(const Matrix& matrix, const std::vector<T>& x, const FormatComparisonOptions& options = {});

// The check every row of the comparison passes: max_i |y_i - (A x)_i| / bound_i with the rounding
// bound 2 (n_i + 1) eps sum_j |a_ij x_j| of the CSR reference in T; <= 1 agrees, inf for a y of the
// wrong length or a NaN where the reference has none.
template <typename T>
double spmvErrorRatio(const CsrMatrix<T>& a, const std::vector<T>& x, const std::vector<T>& y);

// The recommendation rule alone (also used by the tests): the agreeing, applicable row with the
// smallest median; fills pick and pickReason.
void pickFastestAgreeingRow(FormatComparison& comparison);

} // namespace spyglass
