#pragma once
// The batch-inverse panel (method E): choose the order, batch, precision and input (random, LTE
// channel with SNR, ill-conditioned with a condition number, or a stacked Matrix Market file), run on
// the CPU reference, Spyglass's CUDA kernel and/or cuBLAS, and see the times side by side, the
// residual histogram and the singular matrices. It only paints: the work runs in
// app::BatchedInverseJob off the GUI thread. GPU choices are disabled (with the reason) without a GPU.
#include "batchrunpanel.h"
#include "core/batchedinversejob.h"

#include <QList>
#include <QPair>
#include <QVector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace spyglass::widgets {

class HistogramChart;
class TimingChart;
class TimingOptionsBox;

class BatchedInversePanel : public BatchRunPanel {
    Q_OBJECT
public:
    explicit BatchedInversePanel(QWidget* parent = nullptr);
    ~BatchedInversePanel() override;

    // The one-line summary of the last finished run (or the error), as shown in the result label.
    QString resultText() const;

    void run() override;

private:
    app::BatchedInverseRequest requestFor(InverseBackend backend) const;
    void onFinished(const spyglass::app::BatchedInverseSweep& sweep);
    void showRun(const spyglass::app::BatchedInverseResult& result);
    void addFailureLine(const QString& message) override;
    void showLines() override;
    void updateInputControls();

    app::BatchedInverseSweepJob* m_job;
    QSpinBox* m_order;
    QSpinBox* m_batch;
    QComboBox* m_precision;
    QComboBox* m_input;
    QDoubleSpinBox* m_snr;
    QLineEdit* m_condition;
    QLineEdit* m_file;
    QPushButton* m_browse;
    QSpinBox* m_seed;
    TimingOptionsBox* m_timingOptions;
    QCheckBox* m_useCpu;
    QCheckBox* m_useCuda;
    QComboBox* m_kernel;
    QCheckBox* m_useCublas;
    QLabel* m_result;
    QListWidget* m_singular;
    TimingChart* m_timing;
    HistogramChart* m_residuals;

    QVector<QPair<QString, double>> m_times;
};

} // namespace spyglass::widgets
