#pragma once
// Method D's SpMV off the GUI thread: y = A x on the hybrid encoding on the CPU (the reference
// kernel) and on CUDA, and cuSPARSE CSR on the same matrix, each checked against plain CSR SpMV.
// Times come from the measurement engine (spyglass/measurement.h): the median of warm runs, CUDA
// events on the GPU, the cold first run and the upload apart.
// x holds small integers. Binary encodings: the oracle is the original matrix's pattern, every
// backend's fp64 sum is exact and the check is equality. Valued encodings: the oracle is the matrix
// the encoding decodes to (decoding is exact, tst_hybrid_valued), and a row agrees within the
// rounding bound 2 (n_i + 1) eps sum_j |a_ij x_j| of fp64 sums. Also the bytes of each storage.
// A complex valued encoding (c128) runs on every backend too (the CUDA hybrid kernel summing in
// complex<double>, cuSPARSE's complex CSR), timed the same way and checked by the modulus of each
// difference. The binary form is pattern-only: no complex values to hold.
#include "computejob.h"

#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"
#include "spyglass/matrix.h"
#include "spyglass/measurement.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QVector>

#include <atomic>
#include <complex>
#include <memory>
#include <vector>

namespace spyglass::app {

// Which SpMV a run times: the hybrid encoding on the CPU (reference kernel) or on CUDA, or cuSPARSE on
// plain CSR, the baseline. Not spyglass::HybridSpmvBackend, which only says where hybridSpmv() runs.
enum class HybridSpmvKernel { CpuHybrid, CudaHybrid, CusparseCsr };

struct HybridSpmvRequest {
    // Exactly one encoding: a binary one with the original matrix's pattern (the oracle's input), or
    // a valued one.
    std::shared_ptr<const HybridBinaryMatrix> hybrid;
    std::shared_ptr<const BinaryPattern> pattern;
    std::shared_ptr<const HybridValuedMatrix<double>> valued;
    std::shared_ptr<const HybridValuedMatrix<std::complex<double>>> complexValued;  // instead of `valued`
    QVector<HybridSpmvKernel> backends;
    int warmup = 3, repeats = 20;
    unsigned seed = 1;  // for x
};

struct HybridSpmvRun {
    HybridSpmvKernel backend = HybridSpmvKernel::CpuHybrid;
    QString name;               // "CPU hybrid (reference kernel)", "CUDA hybrid", "cuSPARSE CSR"
    Measurement timing;         // the multiply; upload (and cuSPARSE's set-up) apart, < 0 on the CPU
    double bytesMoved = 0;      // GPU: the bytes one SpMV moves at least (the bandwidth floor)
    double maxAbsError = 0;     // max |y - y_ref|; 0 expected for binary encodings (integer x)
    double errorOverBound = 0;  // valued: max |y - y_ref| / bound; <= 1 agrees
    bool matches = false;       // checked against the reference: equal (binary), within bound (valued)
    QString error;              // the backend could not run (no GPU, out of memory ...)
    std::vector<std::complex<double>> complexY;  // complex encodings: the product, for checks beyond the reference
};

// Bytes of each way to store the matrix: what the byte chart shows.
struct HybridBytes {
    bool valued = false;        // the values are stored (CSR and COO below carry values of the same type too)
    bool complexValues = false; // valued in c128 (16 bytes a value) rather than fp64
    qint64 csr = 0;             // CSR: 64-bit row pointers, 32-bit columns (+ values): what the encoding competes with
    qint64 coo = 0;             // COO: two 32-bit indices per nonzero (+ values)
    qint64 cusparseCsr = 0;     // what cuSPARSE multiplies: 32-bit indices and an fp64 value per nonzero
    qint64 hybrid = 0;          // the whole encoding (= the sum of the parts below)
    qint64 regionHeaders = 0;   // the matrix header and one record per region
    qint64 zeroRowPointers = 0; // binary: per region row, where its zeros start (32-bit)
    qint64 zeroOffsets = 0;     // binary: per zero stored, its 16-bit offset in the row's span
    qint64 denseValues = 0;     // valued: every cell of every region, fp64
    qint64 residual = 0;        // the residual CSR
};
HybridBytes hybridBytes(const HybridBinaryMatrix& hybrid, const BinaryPattern& pattern);
HybridBytes hybridBytes(const HybridValuedMatrix<double>& hybrid);
HybridBytes hybridBytes(const HybridValuedMatrix<std::complex<double>>& hybrid);

struct HybridSpmvResult {
    QVector<HybridSpmvRun> runs;
    HybridBytes bytes;
    qint64 rows = 0, cols = 0, nnz = 0;
    int warmup = 0, repeats = 0;
    std::vector<std::complex<double>> complexX;  // complex encodings: the x multiplied
};

// After how many SpMVs the encoding has paid for its detection, encoding and upload against cuSPARSE
// CSR (spyglass::hybridBreakEven): needs a result holding both GPU runs, checked.
struct HybridBreakEvenInfo {
    bool available = false;  // false: the CUDA hybrid or the cuSPARSE run is missing (or failed)
    bool never = false;      // the hybrid SpMV is not faster
    qint64 spmvs = 0;        // whole SpMVs until it has paid (1: from the first)
    QString text;            // "after 312 SpMVs", "from the first SpMV", "never (...)"
    double uploadMs = 0, csrUploadMs = 0;  // set-up + upload of each
    double spmvMs = 0, csrSpmvMs = 0;     // the multiply, median of warm calls
};
HybridBreakEvenInfo hybridBreakEven(const HybridSpmvResult& result, double detectMs, double encodeMs);

// Same work synchronously; throws InputError for a missing or mismatched matrix, CancelledError.
HybridSpmvResult runHybridSpmv(const HybridSpmvRequest& request, const std::atomic<bool>* cancel = nullptr);

using HybridSpmvJob = ComputeJob<HybridSpmvRequest, HybridSpmvResult>;
template <> HybridSpmvJob::ComputeJob(QObject* parent);  // hybridspmvjob.cpp: the run function and the "doing" text

} // namespace spyglass::app

Q_DECLARE_METATYPE(spyglass::app::HybridSpmvResult)
