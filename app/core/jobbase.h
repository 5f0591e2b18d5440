#pragma once
// What every compute job's QObject has in common, declared once: isRunning(), cancel(), and the
// signals. ComputeJob<Request, Result> (computejob.h) holds the JobRunner<Result> (job.h) that runs
// the work and emits them; finished carries the Result in a QVariant because a Q_OBJECT class cannot
// be a template (ComputeJob::onFinished connects a handler that takes the typed Result).
#include "job.h"

#include <QObject>
#include <QString>
#include <QVariant>

namespace spyglass::app {

class JobBase : public QObject {
    Q_OBJECT
public:
    // From start until the outcome has been delivered; a start meanwhile returns false.
    bool isRunning() const { return m_control.isRunning(); }

public slots:
    void cancel() { m_control.cancel(); }

signals:
    void started();  // a start was accepted and the work is on its way to a pool thread
    // percent 0..100, or -1 while the stage gives no measure (one GPU call); only when it changes.
    void progress(int percent, const QString& stage);
    void finished(const QVariant& result);  // the job's Result
    void failed(const QString& message);  // errorText()'s message: the text the CLI prints
    void cancelled();

protected:
    // control: the derived job's runner, a member constructed after this base; only its address is
    // kept here.
    JobBase(QObject* parent, JobControl& control) : QObject(parent), m_control(control) {}

private:
    JobControl& m_control;
};

} // namespace spyglass::app
