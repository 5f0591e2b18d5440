// The format comparison: build every format from the matrix's CSR, run each on the GPU (or the CPU
// reference), check its y against the CSR reference, then pick the fastest row that agrees.
#include "core/formatcomparison_slots.h"
#include "core/formatcomparison_trials.h"

#include "spyglass/backend.h"
#include "spyglass/bitflag.h"
#include "spyglass/bitflag_spmv.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/formatcomparison.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"
#include "spyglass/scalar.h"
#include "spyglass/segdia.h"
#include "spyglass/segdia_spmv.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>

namespace spyglass {

namespace {

using compare_detail::Trial;
using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

template <typename F>
auto timed(double& milliseconds, F&& build) {
    const auto start = Clock::now();
    auto result = build();
    milliseconds = millisecondsSince(start);
    return result;
}

// Host memcpy bandwidth (read + write), the CPU run's counterpart of the device copy.
double hostCopyBandwidth() {
    const std::size_t bytes = std::size_t(64) << 20;
    std::vector<unsigned char> a(bytes, 1), b(bytes, 0);
    const Measurement t = measureRepeated([&] {
        const auto start = Clock::now();
        std::memcpy(b.data(), a.data(), bytes);
        return millisecondsSince(start);
    }, TimingOptions{1, 5}, {}, false);
    if (b[bytes / 2] != 1) throw Error("host copy bandwidth: the copy did not happen");
    return 2.0 * double(bytes) / (t.medianMs * 1e6);
}

std::string megabytes(double bytes) {
    char text[32];
    if (bytes >= 1e9) std::snprintf(text, sizeof text, "%.2f GB", bytes / 1e9);
    else std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
    return text;
}

// A device error's what() starts with the source place of the failing call; the reader wants the
// problem first.
std::string messageFirst(const DeviceError& e) {
    const std::string what = e.what();
    const std::string place = std::string(e.file()) + ":" + std::to_string(e.line()) + ": ";
    if (what.compare(0, place.size(), place) != 0) return what;
    return what.substr(place.size()) + " (" + place.substr(0, place.size() - 2) + ")";
}

// What every row is checked against: the CSR reference and, per row, the rounding bound of a sum of
// n_i + 1 terms in T (both the reference and the format round): 2 (n_i + 1) eps sum_j |a_ij x_j|.
// The formats whose GPU kernels take complex values (c64, c128): cuSPARSE CSR, plain DIA, segmented
// DIA (HDIA is its storage too) and the valued hybrid.
template <typename Format> constexpr bool kComplexOnGpu = false;
template <typename U> constexpr bool kComplexOnGpu<CsrMatrix<U>> = true;
template <typename U> constexpr bool kComplexOnGpu<DiaMatrix<U>> = true;
template <typename U> constexpr bool kComplexOnGpu<SegmentedDiaMatrix<U>> = true;
template <typename U> constexpr bool kComplexOnGpu<HybridValuedMatrix<U>> = true;

template <typename T>
struct Oracle {
    std::vector<T> y;
    std::vector<double> bound;
    double scale = 0;  // max |y_i| over the finite entries
};

// The checks read real and complex values alike: a complex value is NaN or finite by its parts, and
// a difference is measured by its modulus.
template <typename T> bool hasNan(const T& v) {
    if constexpr (isComplexScalar<T>) return std::isnan(v.real()) || std::isnan(v.imag());
    else return std::isnan(v);
}
template <typename T> bool isFiniteValue(const T& v) {
    if constexpr (isComplexScalar<T>) return std::isfinite(v.real()) && std::isfinite(v.imag());
    else return std::isfinite(v);
}
template <typename T> double modulus(const T& v) { return std::abs(widen(v)); }

template <typename T>
Oracle<T> makeOracle(const CsrMatrix<T>& csr, const std::vector<T>& x) {
    Oracle<T> oracle;
    oracle.y = spmvReference(csr, x);
    oracle.bound.resize(oracle.y.size());
    // eps of the real part's type: a complex product's rounding (at most 2 sqrt(2) u in modulus)
    // stays within the same 2 (n + 1) eps = 4 (n + 1) u a row's sum allows.
    using Real = RealOf<T>;
    const double eps = std::numeric_limits<Real>::epsilon();
    for (Index i = 0; i < csr.rows; ++i) {
        double magnitude = 0;
        for (Count k = csr.rowPtr[std::size_t(i)]; k < csr.rowPtr[std::size_t(i) + 1]; ++k)
            magnitude += modulus(widen(csr.values[std::size_t(k)]) * widen(x[std::size_t(csr.colIndex[std::size_t(k)])]));
        const double terms = double(csr.rowPtr[std::size_t(i) + 1] - csr.rowPtr[std::size_t(i)] + 1);
        oracle.bound[std::size_t(i)] = 2.0 * terms * eps * magnitude + double(std::numeric_limits<Real>::denorm_min());
        if (isFiniteValue(oracle.y[std::size_t(i)]))
            oracle.scale = std::max(oracle.scale, modulus(oracle.y[std::size_t(i)]));
    }
    return oracle;
}

template <typename T>
void checkAgainst(FormatRow& row, const std::vector<T>& y, const Oracle<T>& oracle) {
    row.maxRelativeDifference = 0;
    row.errorRatio = 0;
    if (y.size() != oracle.y.size()) {
        row.agrees = false;
        row.errorRatio = std::numeric_limits<double>::infinity();
        return;
    }
    double worst = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        const T& got = y[i];
        const T& want = oracle.y[i];
        // An inf or NaN the reference has too (a matrix holding an inf) is agreement.
        if (got == want || (hasNan(got) && hasNan(want))) continue;
        const double difference = modulus(widen(got) - widen(want));
        worst = std::isnan(difference) ? std::numeric_limits<double>::infinity() : std::max(worst, difference);
        const double ratio = difference / oracle.bound[i];
        row.errorRatio = std::isnan(ratio) ? std::numeric_limits<double>::infinity() : std::max(row.errorRatio, ratio);
    }
    row.maxRelativeDifference = oracle.scale > 0 ? worst / oracle.scale : worst;
    row.agrees = row.errorRatio <= 1.0;
}

template <typename T>
class Comparer {
public:
    Comparer(const Matrix& matrix, const std::vector<T>& x, const FormatComparisonOptions& options)
        : m_matrix(matrix), m_x(x), m_options(options) {}

    FormatComparison run();

private:
    void step(const std::string& what) {
        if (m_options.cancel && m_options.cancel->load()) throw CancelledError();
        if (m_options.progress) m_options.progress(double(m_step) / double(m_steps), what);
        ++m_step;
    }
    FormatRow runFormat(SpmvFormat format);
    // The CPU reference run of one format: the engine's steady-clock median (a CPU multiply has no
    // first-use cost to keep apart, so no cold call).
    template <typename F>
    void runOnCpu(FormatRow& row, F&& spmv) {
        std::vector<T> y;
        row.spmv = measureRepeated([&] {
            y = spmv();
            return -1.0;  // timed by the engine's steady clock
        }, TimingOptions{m_options.cpuWarmup, std::max(1, m_options.cpuRepeats)}, {}, false);
        row.backend = "CPU reference";
        checkAgainst(row, y, m_oracle);
    }
    void takeTrial(FormatRow& row, Trial<T>&& trial, const char* backend) {
        row.buildMs += trial.stageMs;
        row.uploadMs = trial.uploadMs;
        row.bytes = trial.deviceBytes;
        row.bytesMoved = trial.bytesMoved;
        row.spmv = trial.time;
        row.backend = backend;
        if (!trial.note.empty()) row.note += (row.note.empty() ? "" : "; ") + trial.note;
        checkAgainst(row, trial.y, m_oracle);
    }
    // One format's SpMV: its GPU trial (onGpu, on `gpuBackend`), or the CPU reference (onCpu), which
    // reads the format's `bytes` and x and y.
    // onGpu is a generic lambda (it takes an unused tag) so that a complex comparison never
    // instantiates the GPU trials of the formats whose kernels take real values only (runFormat
    // keeps those rows off a GPU comparison).
    template <typename Format, typename OnGpu, typename OnCpu>
    void multiply(FormatRow& row, const Format& a, std::size_t bytes, const char* gpuBackend, OnGpu onGpu, OnCpu onCpu) {
        if constexpr (!isComplexScalar<T> || kComplexOnGpu<Format>) {
            if (m_gpu) {
                takeTrial(row, onGpu(0), gpuBackend);
                return;
            }
        }
        row.bytes = bytes;
        row.bytesMoved = double(bytes) + double(sizeof(T)) * (double(a.rows) + double(a.cols));
        runOnCpu(row, onCpu);
    }
    bool diaKindFits(FormatRow& row, Index groupRows, const char* what);
    bool runBitFlag(FormatRow& row);
    // The hybrid rows: the binary form for binary matrices, the valued form for the rest, and both
    // only with a detector; otherwise row.reason says why and this is false.
    bool hybridFits(FormatRow& row, bool binaryForm) const {
        if (m_matrix.isBinary() != binaryForm)
            row.reason = binaryForm ? "not binary: the hybrid encoding is for matrices whose values are all 1"
                                    : "binary: the hybrid binary row stores its regions by their zeros, no values needed";
        else if (!m_options.findDenseRegions) row.reason = "no dense-region detector was given to the comparison";
        else return true;
        return false;
    }
    // A hybrid form's build, all three steps timed into row.buildMs: the pattern, the detector's
    // regions on it, encode(pattern, regions).
    template <typename MakePattern, typename Encode>
    auto buildHybrid(FormatRow& row, MakePattern makePattern, Encode encode) {
        double patternMs = 0, detectMs = 0, encodeMs = 0;
        const BinaryPattern pattern = timed(patternMs, makePattern);
        const std::vector<DenseRegion> regions = timed(detectMs, [&] { return m_options.findDenseRegions(pattern); });
        auto hybrid = timed(encodeMs, [&] { return encode(pattern, regions); });
        row.buildMs = patternMs + detectMs + encodeMs;
        return hybrid;
    }

    const Matrix& m_matrix;
    const std::vector<T>& m_x;
    const FormatComparisonOptions& m_options;
    bool m_gpu = false;
    compare_detail::TrialRuns m_runs;
    CsrMatrix<T> m_csr;
    CooMatrix<T> m_coo;
    double m_csrBuildMs = 0;
    Oracle<T> m_oracle;
    int m_step = 0, m_steps = 1;
};

template <typename T>
bool Comparer<T>::diaKindFits(FormatRow& row, Index groupRows, const char* what) {
    const compare_detail::DiaFootprint f = compare_detail::diaFootprint(m_csr, groupRows);
    const double perNonzero = double(f.slots) / double(std::max<Count>(m_csr.nnz(), 1));
    char text[320];
    if (f.slots > m_options.maxDiaSlots) {
        std::snprintf(text, sizeof text, "%s needs %lld slots (%lld diagonals%s), over its limit of %lld slots", what,
                      (long long)f.slots, (long long)f.diagonals, groupRows >= m_csr.rows ? "" : " in the widest row group",
                      (long long)m_options.maxDiaSlots);
    } else if (perNonzero > m_options.maxDiaPadding) {
        std::snprintf(text, sizeof text, "%s would store %.0f slots per nonzero (%lld diagonals%s), over its limit of %.0f", what,
                      perNonzero, (long long)f.diagonals, groupRows >= m_csr.rows ? "" : " in the widest row group",
                      m_options.maxDiaPadding);
    } else {
        return true;
    }
    row.reason = text;
    return false;
}

// Method A's row (real values only): false, with row.reason, when the flags would not fit.
template <typename T>
bool Comparer<T>::runBitFlag(FormatRow& row) {
    const Count nnz = m_csr.nnz();
    const std::size_t bytes = bitFlagSpmvDeviceBytes(m_csr.rows, m_csr.cols, nnz, sizeof(T));
    if (bytes > m_options.maxBitFlagBytes) {
        row.reason = "bit flags would take " + megabytes(double(bytes)) + " (" + std::to_string(m_csr.rows) + " rows x " +
                     std::to_string((Count(m_csr.cols) + 63) / 64) + " words), over the limit of " +
                     megabytes(double(m_options.maxBitFlagBytes));
        return false;
    }
    const BitFlagMatrix<T> a = timed(row.buildMs, [&] { return encodeBitFlag(m_csr); });
    multiply(row, a, bytes, "CUDA", [&](auto) { return compare_detail::gpuBitFlagTrial(a, m_x, m_runs); },
             [&] { return bitFlagSpmv(a, m_x); });
    return true;
}

template <typename T>
FormatRow Comparer<T>::runFormat(SpmvFormat format) {
    FormatRow row;
    row.format = format;
    row.name = format == SpmvFormat::Csr && m_gpu ? "cuSPARSE CSR" : toString(format);
    const Count nnz = m_csr.nnz();
    switch (format) {
    case SpmvFormat::Csr: {
        row.buildMs = m_csrBuildMs;
        const std::size_t bytes = m_csr.rowPtr.size() * sizeof(Count) + std::size_t(nnz) * (sizeof(Index) + sizeof(T));
        multiply(row, m_csr, bytes, "cuSPARSE", [&](auto) { return compare_detail::gpuCsrTrial(m_csr, m_x, m_runs); },
                 [&] { return spmvReference(m_csr, m_x); });
        break;
    }
    case SpmvFormat::Dia: {
        if (!diaKindFits(row, std::max<Index>(m_csr.rows, 1), "plain DIA")) return row;
        const DiaMatrix<T> dia = timed(row.buildMs, [&] { return buildDia(m_coo); });
        row.padding = nnz > 0 ? double(dia.storedSlots()) / double(nnz) : 0;
        row.note = std::to_string(dia.offsets.size()) + " diagonals";
        const std::size_t bytes = dia.offsets.size() * sizeof(Index) + dia.values.size() * sizeof(T);
        multiply(row, dia, bytes, "CUDA", [&](auto) { return compare_detail::gpuDiaTrial(dia, m_x, m_runs); },
                 [&] { return spmvReference(dia, m_x); });
        break;
    }
    case SpmvFormat::Hdia:
    case SpmvFormat::SegmentedDia:
    case SpmvFormat::SegmentedDiaNoRemainder: {
        // HDIA and the seed's pure segmented DIA store every diagonal of a segment whole.
        if (format != SpmvFormat::SegmentedDia && !diaKindFits(row, m_options.segmentRows, toString(format))) return row;
        const SegmentedDiaMatrix<T> m = timed(row.buildMs, [&] {
            if (format == SpmvFormat::Hdia) return buildHdia(m_coo, m_options.segmentRows);
            SegmentedDiaOptions o;
            o.threshold = format == SpmvFormat::SegmentedDia && m_options.chooseSegmentRows ? kChooseSegmentThreshold : m_options.segmentRows;
            o.remainder = format == SpmvFormat::SegmentedDia ? SegmentedDiaRemainder::Auto : SegmentedDiaRemainder::Off;
            return buildSegmentedDia(m_coo, o);
        });
        const SegmentedDiaStats s = computeSegmentedDiaStats(m);
        row.padding = s.diaNonzeros > 0 ? s.paddingRatio : 0;
        char note[200];
        std::snprintf(note, sizeof note, "%lld segments of %d rows in %lld blocks, remainder %lld nonzeros%s", (long long)s.segments,
                      int(m.threshold), (long long)s.blocks, (long long)s.remainderNonzeros,
                      s.remainderNonzeros == 0 ? "" : s.remainderOwnPass ? " (own pass)" : " (in the DIA pass)");
        row.note = note;
        multiply(row, m, s.bytes, "CUDA", [&](auto) { return compare_detail::gpuSegmentedDiaTrial(m, m_x, m_runs); },
                 [&] { return spmvReference(m, m_x); });
        break;
    }
    case SpmvFormat::HybridBinary: {
        if (!hybridFits(row, true)) return row;
        const HybridBinaryMatrix hybrid = buildHybrid(
            row, [&] { return binaryPatternFromMatrix(m_matrix); },
            [](const BinaryPattern& pattern, const std::vector<DenseRegion>& regions) { return encodeHybrid(pattern, regions); });
        row.note = std::to_string(hybrid.blocks.size()) + " regions, residual " + std::to_string(hybrid.residual.nnz()) + " nonzeros";
        if (hybrid.csrFallback) row.note += "; CSR fallback: " + hybrid.fallbackReason;
        multiply(row, hybrid, hybrid.encodedBytes(), "CUDA", [&](auto) { return compare_detail::gpuHybridTrial(hybrid, m_x, m_runs); },
                 [&] { return hybridSpmvReference(hybrid, m_x); });
        break;
    }
    case SpmvFormat::HybridValued: {
        if (!hybridFits(row, false)) return row;
        const HybridValuedMatrix<T> hybrid = buildHybrid(
            row, [&] { return patternOfCsr(m_csr); },
            [&](const BinaryPattern&, const std::vector<DenseRegion>& regions) { return encodeHybridValued(m_csr, regions); });
        row.note = std::to_string(hybrid.blocks.size()) + " regions (" + std::to_string(hybrid.explicitZeros()) +
                   " explicit zeros), residual " + std::to_string(hybrid.residual.nnz()) + " nonzeros";
        if (hybrid.csrFallback) row.note += "; CSR fallback: " + hybrid.fallbackReason;
        multiply(row, hybrid, hybrid.encodedBytes(), "CUDA",
                 [&](auto) { return compare_detail::gpuHybridValuedTrial(hybrid, m_x, m_runs); },
                 [&] { return hybridValuedSpmvReference(hybrid, m_x); });
        break;
    }
    case SpmvFormat::BitFlag: {
        if constexpr (isComplexScalar<T>) {
            // Method A's storage and kernels are defined for real values (the seed's bit flags carry
            // real nonzeros); a complex matrix is refused by name rather than split into two.
            row.reason = "bit flags store real values only: a complex matrix has no bit-flag form";
            return row;
        } else {
            if (!runBitFlag(row)) return row;
        }
        break;
    }
    }
    row.applicable = true;
    return row;
}

template <typename T>
FormatComparison Comparer<T>::run() {
    if (m_matrix.isComplex() && !isComplexScalar<T>)
        throw InputError("format comparison: a complex matrix is compared in complex values (c64 or c128), not " +
                         std::string(scalarName<T>()));
    if (m_x.size() != std::size_t(m_matrix.cols))
        throw InputError("format comparison: x has " + std::to_string(m_x.size()) + " entries but the matrix has " +
                         std::to_string(m_matrix.cols) + " columns");
    if (m_options.segmentRows < 1) throw InputError("format comparison: the segment height must be at least 1 row");
    const std::vector<SpmvFormat> formats = allSpmvFormats();
    m_steps = int(formats.size()) + 2;
    FormatComparison c;
    const DeviceInfo device = m_options.useGpu ? cudaDeviceInfo() : DeviceInfo{};
    m_gpu = device.present;
    c.onGpu = m_gpu;
    const std::string why = m_options.useGpu ? "no CUDA device: " + device.reason : std::string("GPU not used");
    c.device = m_gpu ? device.name : "CPU reference backend (" + why + ")";
    c.precision = scalarName<T>();
    c.binary = m_matrix.isBinary();
    m_runs.warmup = std::max(0, m_options.warmup);
    m_runs.repeats = std::max(1, m_options.repeats);

    step("reading the matrix into CSR");
    m_coo = toCoo<T>(expandSymmetry(m_matrix));
    m_csr = timed(m_csrBuildMs, [&] { return cooToCsr(m_coo); });
    c.rows = m_csr.rows;
    c.cols = m_csr.cols;
    c.nonzeros = m_csr.nnz();
    m_oracle = makeOracle(m_csr, m_x);

    step("measuring the copy bandwidth");
    if (m_gpu) {
        compare_detail::prepareGpu();
        c.copyBandwidthGBs = compare_detail::gpuCopyBandwidth();
    } else {
        c.copyBandwidthGBs = hostCopyBandwidth();
    }

    for (SpmvFormat format : formats) {
        step(toString(format));
        FormatRow row;
        try {
            row = runFormat(format);
        } catch (const OutOfMemoryError& e) {
            row = FormatRow{};
            row.reason = std::string(m_gpu ? "GPU out of memory: " : "out of memory: ") + messageFirst(e);
        } catch (const std::bad_alloc&) {
            row = FormatRow{};
            row.reason = "host out of memory while building the format";
        } catch (const InputError& e) {
            row = FormatRow{};
            row.reason = e.what();  // e.g. more entries than cuSPARSE's 32-bit indices
        }
        if (!row.applicable) {
            row.format = format;
            row.name = format == SpmvFormat::Csr && m_gpu ? "cuSPARSE CSR" : toString(format);
            row.backend = m_gpu ? (format == SpmvFormat::Csr ? "cuSPARSE" : "CUDA") : "CPU reference";
        }
        c.results.push_back(std::move(row));
    }

    const FormatRow* csr = nullptr;
    for (const FormatRow& row : c.results)
        if (row.format == SpmvFormat::Csr && row.applicable) csr = &row;
    for (FormatRow& row : c.results) {
        if (!row.applicable) continue;
        row.gbPerSecond = row.spmv.medianMs > 0 ? row.bytesMoved / (row.spmv.medianMs * 1e6) : 0;
        row.copyFraction = c.copyBandwidthGBs > 0 ? row.gbPerSecond / c.copyBandwidthGBs : 0;
        if (csr && row.spmv.medianMs > 0) row.speedupOverCsr = csr->spmv.medianMs / row.spmv.medianMs;
        if (csr && csr->bytes > 0) row.bytesOverCsr = double(row.bytes) / double(csr->bytes);
    }
    pickFastestAgreeingRow(c);
    if (m_options.progress) m_options.progress(1.0, "done");
    return c;
}

} // namespace

template <typename T>
FormatComparison compareSpmvFormats(const Matrix& matrix, const std::vector<T>& x, const FormatComparisonOptions& options) {
    return Comparer<T>(matrix, x, options).run();
}

template FormatComparison compareSpmvFormats(const Matrix&, const std::vector<float>&, const FormatComparisonOptions&);
template FormatComparison compareSpmvFormats(const Matrix&, const std::vector<double>&, const FormatComparisonOptions&);
template FormatComparison compareSpmvFormats(const Matrix&, const std::vector<std::complex<float>>&, const FormatComparisonOptions&);
template FormatComparison compareSpmvFormats(const Matrix&, const std::vector<std::complex<double>>&, const FormatComparisonOptions&);

template <typename T>
double spmvErrorRatio(const CsrMatrix<T>& a, const std::vector<T>& x, const std::vector<T>& y) {
    FormatRow row;
    checkAgainst(row, y, makeOracle(a, x));
    return row.errorRatio;
}

template double spmvErrorRatio(const CsrMatrix<float>&, const std::vector<float>&, const std::vector<float>&);
template double spmvErrorRatio(const CsrMatrix<double>&, const std::vector<double>&, const std::vector<double>&);
template double spmvErrorRatio(const CsrMatrix<std::complex<float>>&, const std::vector<std::complex<float>>&,
                               const std::vector<std::complex<float>>&);
template double spmvErrorRatio(const CsrMatrix<std::complex<double>>&, const std::vector<std::complex<double>>&,
                               const std::vector<std::complex<double>>&);

} // namespace spyglass
