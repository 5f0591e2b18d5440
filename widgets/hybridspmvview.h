#pragma once
// Method D's GPU part of the Dense regions tab: SpMV on the hybrid encoding on the CPU and on CUDA,
// and cuSPARSE CSR on the same matrix, each checked against the reference; a table of the runs
// (upload apart, median of warm runs, check), a chart of the times and one of the bytes of each
// storage. The work runs in app::HybridSpmvJob; this widget only shows what arrives. Without a
// CUDA device the GPU choices are disabled and say why.
#include "core/deviceinfocache.h"
#include "core/hybridspmvjob.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;

namespace spyglass::widgets {

class HybridSpmvRunsModel;
class TimingChart;

class HybridSpmvView : public QWidget {
    Q_OBJECT
public:
    explicit HybridSpmvView(QWidget* parent = nullptr);

    // The encoding to multiply with (null: none yet); clears the shown runs.
    void setEncoding(std::shared_ptr<const HybridBinaryMatrix> hybrid, std::shared_ptr<const BinaryPattern> pattern);
    void setEncoding(std::shared_ptr<const HybridValuedMatrix<double>> valued);
    // A complex matrix's valued encoding (c128): the CPU reference multiplies it; GPU runs say why not.
    void setEncoding(std::shared_ptr<const HybridValuedMatrix<std::complex<double>>> complexValued);
    // What the encoding cost to make (detection, encoding): with the CUDA and cuSPARSE runs it gives
    // the break-even, after how many SpMVs the hybrid has paid for itself against cuSPARSE CSR.
    void setPreparation(double detectMs, double encodeMs);
    QString breakEvenText() const;
    const app::HybridSpmvResult& result() const { return m_result; }
    QString statusText() const;
    bool isRunning() const { return m_job.isRunning(); }
    // For tests and scripted runs: which backends are ticked (GPU ones only when enabled).
    void setBackendChecked(app::HybridSpmvKernel backend, bool on);
    bool isBackendEnabled(app::HybridSpmvKernel backend) const;
    const HybridSpmvRunsModel& runsModel() const { return *m_runsModel; }

public slots:
    bool run();  // false when there is no encoding, nothing ticked, or a run is going
    void cancel();

signals:
    void resultShown();
    void failureShown(const QString& message);

private:
    QCheckBox* box(app::HybridSpmvKernel backend) const;
    void showResult(const app::HybridSpmvResult& result);
    void showBytes(const app::HybridBytes& bytes);
    void setBusy(bool busy);
    void showDevice(const spyglass::DeviceInfo& device);
    void showBreakEven();

    app::HybridSpmvJob m_job;
    app::HybridSpmvResult m_result;
    std::shared_ptr<const HybridBinaryMatrix> m_hybrid;
    std::shared_ptr<const BinaryPattern> m_pattern;
    std::shared_ptr<const HybridValuedMatrix<double>> m_valued;
    std::shared_ptr<const HybridValuedMatrix<std::complex<double>>> m_complexValued;
    bool hasEncoding() const { return (m_hybrid && m_pattern) || m_valued || m_complexValued; }

    QCheckBox* m_useCpu;
    QCheckBox* m_useCuda;
    QCheckBox* m_useCusparse;
    QSpinBox* m_repeats;
    QLabel* m_gpuNote;
    QPushButton* m_runButton;
    QPushButton* m_cancelButton;
    QLabel* m_status;
    QLabel* m_breakEven;
    double m_detectMs = -1, m_encodeMs = -1;
    HybridSpmvRunsModel* m_runsModel;
    QTableView* m_runs;
    TimingChart* m_times;
    TimingChart* m_bytes;
};

} // namespace spyglass::widgets
