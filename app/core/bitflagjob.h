#pragma once
// The compute service behind the bit-flag panel (method A). Two kinds of work, both off the GUI
// thread with progress and cancel:
//   layout:    encode the open matrix in bit-flag form (order, prefix counts) and count its bytes
//              against CSR for every order/prefix choice;
//   operation: A + B, A - B, A B or LU(A) (B = A unless a second matrix is given) on the CPU
//              reference, Spyglass's CUDA kernels and the vendor library, each checked: the CPU
//              reference against an independent fp64 CSR computation, the GPU results against the
//              CPU reference, LU by its backward error; all within bounds derived from precision.
// Sizes whose bit-flag form (or an operation's worst-case output) would pass maxBytes are refused
// before anything is allocated, with the numbers in the message.
#include "computejob.h"

#include "spyglass/bitflag.h"
#include "spyglass/measurement.h"
#include "spyglass/matrix.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QVector>

#include <atomic>
#include <functional>
#include <memory>
#include <variant>

namespace spyglass::app {

// 512 MB: the bit-flag arrays of one operand (and an operation's dense worst case) must stay well
// inside a desktop's memory beside the matrix itself and its CSR copy.
constexpr double kDefaultMaxBitFlagBytes = 512e6;

enum class BitFlagOp { Add, Subtract, Multiply, Lu };
QString toString(BitFlagOp op);  // "A + B", "A − B", "A · B", "LU of A"

// Bytes of one storage choice, computed from the shape and entry count alone.
struct BitFlagBytes {
    BitFlagOrder order = BitFlagOrder::RowMajor;
    bool prefixCounts = false;
    double values = 0, flags = 0, lineStarts = 0, prefix = 0;
    double total() const { return values + flags + lineStarts + prefix; }
    double breakEvenDensity = 0;  // above it the bit-flag form is smaller than CSR
};
BitFlagBytes estimateBitFlagBytes(Index rows, Index cols, Count entries, BitFlagOrder order, bool prefixCounts);
// CSR of the same matrix: fp64 values, 32-bit column indices, 64-bit row pointers.
double csrBytes(Index rows, Count entries);

struct BitFlagLayoutRequest {
    std::shared_ptr<const Matrix> matrix;
    BitFlagOrder order = BitFlagOrder::RowMajor;
    bool prefixCounts = false;
    double maxBytes = kDefaultMaxBitFlagBytes;
};

struct BitFlagLayout {
    std::shared_ptr<const BitFlagMatrix<double>> format;
    BitFlagStats stats;
    QVector<BitFlagBytes> choices;  // row/column-major x without/with prefix counts
    double encodeMs = 0;
};

struct BitFlagOpRequest {
    std::shared_ptr<const Matrix> a;
    std::shared_ptr<const Matrix> b;  // null: B = A, unless bPath is set
    QString bPath;                    // B read from this Matrix Market file in the worker (when b is null)
    QString bName;                    // for messages ("B (west0479.mtx)"); empty: "B"
    BitFlagOp op = BitFlagOp::Add;
    bool cuda = false;                // Spyglass's CUDA kernels (fp64)
    bool vendor = false;              // cuSPARSE csrgeam2 / SpGEMM (fp32); LU: cuSOLVER getrf (fp64)
    bool prefixCounts = false;
    double maxBytes = kDefaultMaxBitFlagBytes;
};

struct BitFlagOpRun {
    QString name;                // "CPU reference (bit-flag)", "CUDA bit-flag kernels", "cuSPARSE CSR (fp32)"
    QString checkedAgainst;      // "fp64 CSR oracle", "CPU reference", "backward error"
    // The measurement engine's figure (measurement.h): GPU the device work alone (CUDA events, cold
    // call, upload and download apart); the CPU reference one run by the steady clock.
    Measurement timing;
    Count entries = 0;           // stored entries of the result (LU: L + U)
    bool samePattern = true;
    double maxDifference = 0;    // max |x - x_ref| / max |x_ref| (LU: of the factors against the reference)
    double worstBoundRatio = 0;  // <= 1: within the error bound
    double residual = -1;        // LU: max |A - L U| / max |A|; -1 otherwise
    bool agrees = false;
    QString problem;             // the first entry out of pattern or bound
    QString error;               // the backend could not run (no GPU, size limit, zero pivot ...)
};

struct BitFlagOpResult {
    BitFlagOp op = BitFlagOp::Add;
    QString description;         // "A + A: 66 × 66 + 66 × 66 → 66 × 66"
    Index rows = 0, cols = 0;    // of the result
    QVector<BitFlagOpRun> runs;  // the CPU reference first
    // Multiply with both the CUDA kernels and cuSPARSE run: which was faster and why
    // (bitflagmultiplyverdict.h); empty otherwise.
    QString verdict;
    // The CPU reference's result, decoded to CSR (null when it failed): C for add/sub/multiply,
    // L (unit diagonal stored) and U for LU.
    std::shared_ptr<const CsrMatrix<double>> product, lower, upper;
    bool allAgree() const;       // every run that ran agrees, and the reference ran
};

// Progress: percent 0..100 and the stage in words. Called on the worker thread.
struct BitFlagJobControl {
    const std::atomic<bool>* cancel = nullptr;
    JobProgress progress;
};

// The same work synchronously. Throw InputError (sizes, shapes, complex data), CancelledError.
BitFlagLayout buildBitFlagLayout(const BitFlagLayoutRequest& request, const BitFlagJobControl& control = {});
BitFlagOpResult runBitFlagOperation(const BitFlagOpRequest& request, const BitFlagJobControl& control = {});

// One job for both kinds of work (one run at a time): the result holds exactly one of the two.
using BitFlagJobRequest = std::variant<BitFlagLayoutRequest, BitFlagOpRequest>;
struct BitFlagJobResult {
    std::shared_ptr<BitFlagLayout> layout;
    std::shared_ptr<BitFlagOpResult> operation;
};
BitFlagJobResult runBitFlagJob(const BitFlagJobRequest& request, const std::atomic<bool>* cancel, const JobProgress& progress);

// finished(BitFlagJobResult) is also told apart as layoutFinished / operationFinished.
class BitFlagJob : public ComputeJob<BitFlagJobRequest, BitFlagJobResult> {
    Q_OBJECT
public:
    explicit BitFlagJob(QObject* parent = nullptr);

    // Both return false (and do nothing) while a run is going.
    bool startLayout(const BitFlagLayoutRequest& request) { return start(request); }
    bool startOperation(const BitFlagOpRequest& request) { return start(request); }

signals:
    void layoutFinished(const spyglass::app::BitFlagLayout& layout);
    void operationFinished(const spyglass::app::BitFlagOpResult& result);
};

} // namespace spyglass::app

Q_DECLARE_METATYPE(spyglass::app::BitFlagJobResult)
Q_DECLARE_METATYPE(spyglass::app::BitFlagLayout)
Q_DECLARE_METATYPE(spyglass::app::BitFlagOpResult)
