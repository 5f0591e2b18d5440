#pragma once
// What every compute job's QObject has in common, declared once: isRunning(), cancel(), and the
// started / failed / cancelled signals. A job adds its typed finished (and progress) signals, its
// start(Request) and a JobRunner<Result> member (job.h) that runs the work and delivers the outcome.
#include "job.h"

#include <QObject>
#include <QString>

namespace spyglass::app {

class JobBase : public QObject {
    Q_OBJECT
public:
    // From start until the outcome has been delivered; a start meanwhile returns false.
    bool isRunning() const { return m_control.isRunning(); }

public slots:
    void cancel() { m_control.cancel(); }

signals:
    void started();  // emitted by the jobs that announce a start (the panels show a busy state)
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
