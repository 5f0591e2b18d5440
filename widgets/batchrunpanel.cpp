// The run's life cycle shared by the batch panels (see batchrunpanel.h).
#include "batchrunpanel.h"

#include "core/jobbase.h"

#include <QPushButton>

namespace spyglass::widgets {

BatchRunPanel::BatchRunPanel(QWidget* parent) : QWidget(parent) {}

bool BatchRunPanel::isRunning() const { return m_job && m_job->isRunning(); }

void BatchRunPanel::cancel() {
    if (m_job) m_job->cancel();
}

void BatchRunPanel::watchJob(app::JobBase* job) {
    m_job = job;
    connect(m_job, &app::JobBase::failed, this, &BatchRunPanel::onFailed);
    connect(m_job, &app::JobBase::cancelled, this, &BatchRunPanel::onCancelled);
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
}

} // namespace spyglass::widgets
