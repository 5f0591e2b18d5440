#pragma once
// Method D's SpMV off the GUI thread: y = A x on the hybrid encoding on the CPU (the reference
// kernel) and on CUDA, and cuSPARSE CSR on the same matrix, each checked against plain pattern-CSR
// SpMV of the original matrix. Times are medians of warm runs (bench::measure; CUDA events on the
// GPU), the upload timed apart. x holds small integers, so every backend's fp64 sums are exact and
// the check is equality. Also the bytes of each storage (CSR, COO, hybrid and its parts).
#include "spyglass/hybridbinary.h"
#include "spyglass/matrix.h"

#include <QFutureWatcher>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QVector>

#include <atomic>
#include <memory>

namespace spyglass::app {

enum class HybridSpmvBackend { CpuHybrid, CudaHybrid, CusparseCsr };

struct HybridSpmvRequest {
    std::shared_ptr<const HybridBinaryMatrix> hybrid;
    std::shared_ptr<const BinaryPattern> pattern;  // the original matrix's pattern (the oracle's input)
    QVector<HybridSpmvBackend> backends;
    int warmup = 3, repeats = 20;
    unsigned seed = 1;  // for x
};

struct HybridSpmvRun {
    HybridSpmvBackend backend = HybridSpmvBackend::CpuHybrid;
    QString name;               // "CPU hybrid (reference kernel)", "CUDA hybrid", "cuSPARSE CSR"
    double uploadMs = -1;       // < 0: no upload (CPU)
    double medianMs = 0, minMs = 0, maxMs = 0;
    int repeats = 0;
    double maxAbsError = 0;     // max |y - y_ref|; 0 expected (integer x)
    bool matches = false;       // checked against the reference and equal
    QString error;              // the backend could not run (no GPU, out of memory ...)
};

// Bytes of each way to store the pattern: what the byte chart shows.
struct HybridBytes {
    qint64 csr = 0;             // pattern CSR: 64-bit row pointers, 32-bit columns (what the encoding competes with)
    qint64 coo = 0;             // pattern COO: two 32-bit indices per nonzero
    qint64 cusparseCsr = 0;     // what cuSPARSE multiplies: 32-bit indices and an fp64 value per nonzero
    qint64 hybrid = 0;          // the whole encoding (= the sum of the four parts below)
    qint64 regionHeaders = 0;   // the matrix header and one record per region
    qint64 zeroRowPointers = 0; // per region row: where its zeros start (32-bit)
    qint64 zeroOffsets = 0;     // per zero stored: its 16-bit offset in the row's span
    qint64 residual = 0;        // the residual pattern CSR
};
HybridBytes hybridBytes(const HybridBinaryMatrix& hybrid, const BinaryPattern& pattern);

struct HybridSpmvResult {
    QVector<HybridSpmvRun> runs;
    HybridBytes bytes;
    qint64 rows = 0, cols = 0, nnz = 0;
    int warmup = 0, repeats = 0;
};

// Same work synchronously; throws InputError for a missing or mismatched matrix, CancelledError.
HybridSpmvResult runHybridSpmv(const HybridSpmvRequest& request, const std::atomic<bool>* cancel = nullptr);

class HybridSpmvJob : public QObject {
    Q_OBJECT
public:
    explicit HybridSpmvJob(QObject* parent = nullptr);
    ~HybridSpmvJob() override;  // cancels and waits
    bool isRunning() const { return m_watcher.isRunning(); }

public slots:
    bool start(const spyglass::app::HybridSpmvRequest& request);  // false while a run is going
    void cancel();

signals:
    void finished(const spyglass::app::HybridSpmvResult& result);
    void failed(const QString& message);
    void cancelled();

private:
    struct Outcome {
        std::shared_ptr<HybridSpmvResult> result;
        QString error;
        bool cancelled = false;
    };
    void deliver();
    std::atomic<bool> m_cancel{false};
    QFutureWatcher<Outcome> m_watcher;
};

} // namespace spyglass::app

Q_DECLARE_METATYPE(spyglass::app::HybridSpmvResult)
