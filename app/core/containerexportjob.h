#pragma once
// A container export off the GUI thread (building a bit-flag form or serialising a large format can
// take seconds): the caller hands over the work, the job runs it on a pool thread with a cancel flag
// and reports the outcome as plain strings. Exceptions stop here.
#include "containerexport.h"
#include "job.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>

namespace spyglass::app {

class ContainerExportJob : public QObject {
    Q_OBJECT
public:
    // Runs on a pool thread; must poll the flag it is given (the export functions do).
    using Work = std::function<ContainerExportReport(const std::atomic<bool>* cancel)>;

    explicit ContainerExportJob(QObject* parent = nullptr);  // the destructor cancels and waits (JobRunner)

    bool isRunning() const { return m_runner.isRunning(); }
    // False (and nothing started) while an export is running.
    bool start(const QString& path, Work work);

public slots:
    void cancel();

signals:
    void finished(const QString& path, const QString& summary);  // summary: ContainerExportReport::describe
    void failed(const QString& path, const QString& message);
    void cancelled(const QString& path);

private:
    QString m_path;
    JobRunner<QString> m_runner;  // the result is the summary
};

} // namespace spyglass::app
