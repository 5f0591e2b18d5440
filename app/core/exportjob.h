#pragma once
// Every export of the GUI off the GUI thread (building a bit-flag form or serialising a large format
// can take seconds): the caller hands over the work, the job runs it on a pool thread with a cancel
// flag and finishes with the one-line summary the work returns (ContainerExportReport::describe,
// "Wrote FILE"). The work writes through the checked writer (checkedwrite.h), so a file that would not
// read back is never written. Exceptions stop here: failed(message) names the file.
#include "computejob.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>

namespace spyglass::app {

struct ExportRequest {
    QString path;
    // Runs on a pool thread; may poll the flag it is given (the container exports do).
    std::function<QString(const std::atomic<bool>* cancel)> work;
};

class ExportJob : public ComputeJob<ExportRequest, QString> {
    Q_OBJECT
public:
    using Work = decltype(ExportRequest::work);

    explicit ExportJob(QObject* parent = nullptr);

    // False (and nothing started) while an export is running.
    bool start(const QString& path, Work work);
    // The file of the running (or last) export, for the messages that name it.
    const QString& path() const { return m_path; }

private:
    QString m_path;
};

} // namespace spyglass::app
