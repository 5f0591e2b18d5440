#include "containerexportjob.h"

#include "spyglass/error.h"

#include <QtConcurrent/QtConcurrentRun>

namespace spyglass::app {

ContainerExportJob::ContainerExportJob(QObject* parent) : QObject(parent) {
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &ContainerExportJob::deliver);
}

ContainerExportJob::~ContainerExportJob() {
    cancel();
    m_watcher.waitForFinished();
}

bool ContainerExportJob::start(const QString& path, Work work) {
    if (m_watcher.isRunning()) return false;
    m_path = path;
    // A fresh flag per run: a cancel meant for the previous export cannot stop this one.
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_watcher.setFuture(QtConcurrent::run([path, work = std::move(work), cancel = m_cancel]() {
        Outcome outcome;
        try {
            outcome.summary = work(cancel.get()).describe(path);
            outcome.ok = true;
        } catch (const CancelledError&) {
            outcome.cancelled = true;
        } catch (const std::exception& error) {
            outcome.error = QString::fromUtf8(error.what());
        }
        return outcome;
    }));
    return true;
}

void ContainerExportJob::cancel() {
    if (m_cancel) m_cancel->store(true);
}

void ContainerExportJob::deliver() {
    const Outcome outcome = m_watcher.result();
    if (outcome.cancelled) emit cancelled(m_path);
    else if (outcome.ok) emit finished(m_path, outcome.summary);
    else emit failed(m_path, outcome.error);
}

} // namespace spyglass::app
