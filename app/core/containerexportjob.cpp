#include "containerexportjob.h"

namespace spyglass::app {

ContainerExportJob::ContainerExportJob(QObject* parent)
    : QObject(parent),
      m_runner(this, {[this](const QString& summary) { emit finished(m_path, summary); },
                      [this](const QString& message) { emit failed(m_path, message); }, [this] { emit cancelled(m_path); }}) {}

bool ContainerExportJob::start(const QString& path, Work work) {
    if (m_runner.isRunning()) return false;
    m_path = path;
    return m_runner.start([path, work = std::move(work)](const std::atomic<bool>* cancel) { return work(cancel).describe(path); },
                          QStringLiteral("exporting %1").arg(path));
}

void ContainerExportJob::cancel() { m_runner.cancel(); }

} // namespace spyglass::app
