#pragma once
// What the two batch panels (batched SVD, batched inverse) share around a run: the backend sweep's
// job is started by Run and stopped by Cancel, its progress shows in one bar ("CUDA (2 of 3): phase"),
// and a sweep that fails or is cancelled ends like one that finished, with a line saying so and
// allRunsFinished. Each panel builds its own form and shows
// its own results; the run's life cycle is the same for both, so it is written once here.
#include <QStringList>
#include <QWidget>

class QProgressBar;
class QPushButton;

namespace spyglass::app {
class JobBase;
}

namespace spyglass::widgets {

class MeasurementTableModel;

class BatchRunPanel : public QWidget {
    Q_OBJECT
public:
    bool isRunning() const;
    // The timing table of the last run: one row per backend (median, ratio to the vendor row, bandwidth).
    const MeasurementTableModel* measurements() const { return m_measurements; }

public slots:
    virtual void run() = 0;  // runs every checked backend, one after the other
    void cancel();

signals:
    void allRunsFinished();  // after the last queued backend finished, failed or was cancelled

protected:
    explicit BatchRunPanel(QWidget* parent);
    // The panel's sweep job (made by the panel, which connects its typed result): a failure or a
    // cancel ends the run here.
    void watchJob(app::JobBase* job);
    // The run ended (finished, failed or cancelled): the buttons go back and allRunsFinished is emitted.
    void finishRuns();
    // The Run / Cancel buttons and the progress bar; a panel adds what else it shows while running.
    virtual void setRunning(bool running);
    // Adds the line for a failed run or sweep, as the panel marks failures.
    virtual void addFailureLine(const QString& message) = 0;
    // Shows m_lines (they changed).
    virtual void showLines() = 0;

    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QProgressBar* m_progress = nullptr;  // made here; each panel places it under its buttons
    MeasurementTableModel* m_measurements = nullptr;
    QStringList m_lines;  // the result lines: one per backend run, failure, skip or cancel

private:
    void onFailed(const QString& message);
    void onCancelled();
    void onProgress(int percent, const QString& stage);

    app::JobBase* m_job = nullptr;
};

} // namespace spyglass::widgets
