#pragma once
// A container export off the GUI thread (building a bit-flag form or serialising a large format can
// take seconds): the caller hands over the work, the job runs it on a pool thread with a cancel flag
// and finishes with the summary as a QString (ContainerExportReport::describe). Exceptions stop here.
#include "computejob.h"
#include "containerexport.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>

namespace spyglass::app {

struct ContainerExportRequest {
    QString path;
    // Runs on a pool thread; must poll the flag it is given (the export functions do).
    std::function<ContainerExportReport(const std::atomic<bool>* cancel)> work;
};

class ContainerExportJob : public ComputeJob<ContainerExportRequest, QString> {
    Q_OBJECT
public:
    using Work = decltype(ContainerExportRequest::work);

    explicit ContainerExportJob(QObject* parent = nullptr);

    // False (and nothing started) while an export is running.
    bool start(const QString& path, Work work);
    // The file of the running (or last) export, for the messages that name it.
    const QString& path() const { return m_path; }

private:
    QString m_path;
};

} // namespace spyglass::app
