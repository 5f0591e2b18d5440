#include "exportjob.h"

namespace spyglass::app {

ExportJob::ExportJob(QObject* parent)
    : ComputeJob(
          parent, [](const ExportRequest& request, const std::atomic<bool>* cancel) { return request.work(cancel); },
          [](const ExportRequest& request) { return QStringLiteral("exporting %1").arg(request.path); }) {}

bool ExportJob::start(const QString& path, Work work) {
    if (isRunning()) return false;
    m_path = path;
    return ComputeJob::start({path, std::move(work)});
}

} // namespace spyglass::app
