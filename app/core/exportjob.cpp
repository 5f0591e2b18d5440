#include "containerexportjob.h"

namespace spyglass::app {

ContainerExportJob::ContainerExportJob(QObject* parent)
    : ComputeJob(
          parent,
          [](const ContainerExportRequest& request, const std::atomic<bool>* cancel) {
              return request.work(cancel).describe(request.path);
          },
          [](const ContainerExportRequest& request) { return QStringLiteral("exporting %1").arg(request.path); }) {}

bool ContainerExportJob::start(const QString& path, Work work) {
    if (isRunning()) return false;
    m_path = path;
    return ComputeJob::start({path, std::move(work)});
}

} // namespace spyglass::app
