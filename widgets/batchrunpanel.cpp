// The run's life cycle shared by the batch panels (see batchrunpanel.h).
#include "batchrunpanel.h"

#include "core/jobbase.h"

#include "measurementtablemodel.h"

#include <QProgressBar>
#include <QPushButton>

namespace spyglass::widgets {

BatchRunPanel::BatchRunPanel(QWidget* parent) : QWidget(parent), m_progress(new QProgressBar) {
    m_progress->setObjectName(QStringLiteral("progress"));
    m_progress->setRange(0, 100);
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_progress->setFormat(tr("idle"));
}

bool BatchRunPanel::isRunning() const { return m_job && m_job->isRunning(); }

void BatchRunPanel::cancel() {
    if (m_job) m_job->cancel();
}

void BatchRunPanel::watchJob(app::JobBase* job) {
    m_job = job;
    connect(m_job, &app::JobBase::failed, this, &BatchRunPanel::onFailed);
    connect(m_job, &app::JobBase::cancelled, this, &BatchRunPanel::onCancelled);
    connect(m_job, &app::JobBase::progress, this, &BatchRunPanel::onProgress);
}

// stage: "CUDA (2 of 3): phase", the sweep's words.
void BatchRunPanel::onProgress(int percent, const QString& stage) {
    if (percent < 0) {
        m_progress->setRange(0, 0);  // busy: one GPU call gives no measure
    } else {
        m_progress->setRange(0, 100);
        m_progress->setValue(percent);
    }
    m_progress->setFormat(stage + (percent < 0 ? QString() : QStringLiteral(" %p%")));
}

void BatchRunPanel::onFailed(const QString& message) {
    addFailureLine(message);
    showLines();
    finishRuns();
}

void BatchRunPanel::onCancelled() {
    m_lines << tr("Cancelled.");
    showLines();
    finishRuns();
}

void BatchRunPanel::finishRuns() {
    setRunning(false);
    emit allRunsFinished();
}

void BatchRunPanel::setRunning(bool running) {
    m_runButton->setEnabled(!running);
    m_cancelButton->setEnabled(running);
    m_progress->setRange(0, 100);
    if (running) {
        m_progress->setValue(0);
        m_progress->setFormat(tr("starting %p%"));
        return;
    }
    const bool measured = m_measurements && m_measurements->rowCount() > 0;
    m_progress->setValue(measured ? 100 : 0);
    m_progress->setFormat(measured ? tr("done") : tr("idle"));
}

} // namespace spyglass::widgets
