#pragma once
// The batched-SVD panel (method C): choose m, n, batch, type and input (random, rank-deficient,
// graded, sonar-like snapshots or a stacked Matrix Market file), tolerance and sweep limit; run on the
// CPU reference, Spyglass's CUDA kernel and/or cuSOLVER gesvdjBatched; see the accuracy per backend in
// a table, the singular values and the convergence of a chosen matrix, and the times side by side.
// It only paints: the backends run one after the other in app::BatchedSvdSweepJob off the GUI thread. Without a GPU the GPU
// choices are disabled and a note says that only the CPU reference runs.
#include "batchrunpanel.h"
#include "core/batchedsvdjob.h"
#include "core/deviceinfocache.h"

#include <QList>
#include <QVector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableView;

namespace spyglass::widgets {

class BatchedSvdAccuracyModel;
class LineChart;
class TimingChart;
class TimingOptionsBox;

class BatchedSvdPanel : public BatchRunPanel {
    Q_OBJECT
public:
    explicit BatchedSvdPanel(QWidget* parent = nullptr);
    ~BatchedSvdPanel() override;

    // The summaries of the last run's backends and any errors, one per line, as shown.
    QString resultText() const;
    // The results of the last run, in the order the backends finished.
    QVector<app::BatchedSvdResult> results() const { return m_results; }
    // The accuracy table's model.
    const BatchedSvdAccuracyModel& accuracyModel() const { return *m_model; }

    void run() override;

private:
    app::BatchedSvdRequest requestFor(SvdBackend backend) const;
    void onFinished(const spyglass::app::BatchedSvdSweep& sweep);
    void showRun(const spyglass::app::BatchedSvdResult& result);
    void addFailureLine(const QString& message) override;
    void updateMatrixViews();
    void updateInputControls();
    void showLines() override;
    void showDevice(const spyglass::DeviceInfo& device);

    app::BatchedSvdSweepJob* m_job;
    QSpinBox* m_rows;
    QSpinBox* m_columns;
    QSpinBox* m_batch;
    QComboBox* m_precision;
    QComboBox* m_input;
    QLineEdit* m_file;
    QPushButton* m_browse;
    QSpinBox* m_seed;
    QLineEdit* m_tolerance;
    QSpinBox* m_maxSweeps;
    QCheckBox* m_useCpu;
    QCheckBox* m_useCuda;
    QCheckBox* m_useCusolver;  // gesvdjBatched
    QCheckBox* m_useGesvda;    // gesvdaStridedBatched
    QComboBox* m_variant;  // the CUDA mapping (SvdVariant)
    QLabel* m_gpuNote;
    QLabel* m_result;
    BatchedSvdAccuracyModel* m_model;
    QTableView* m_table;
    QSpinBox* m_matrix;
    QLabel* m_matrixInfo;
    LineChart* m_spectrum;
    LineChart* m_convergence;
    TimingChart* m_timing;
    TimingOptionsBox* m_timingOptions;
    QLabel* m_flaggedTitle;
    QListWidget* m_flagged;

    QVector<app::BatchedSvdResult> m_results;
    QStringList m_errors;
};

} // namespace spyglass::widgets
