#pragma once
// One request in, one result out: the QObject every compute job is, written once. A job is a
// Request, a Result (Q_DECLARE_METATYPE'd), the plain function the command-line tool and the tests
// call synchronously, and ComputeJob<Request, Result> itself, whose one-argument constructor the job
// specializes to hand that function and a "doing" text to the general constructor. start() runs it
// on a pool thread through a JobRunner and announces started(); the outcome arrives as JobBase's
// finished(QVariant) / failed / cancelled, and onFinished() connects a handler that takes the typed
// Result. Q_OBJECT classes cannot be templates, hence the QVariant signal and the typed connector.
#include "jobbase.h"

#include <QMetaObject>
#include <QMetaType>
#include <QString>
#include <QVariant>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace spyglass::app {

// A job's progress, called on the worker thread: percent 0..100, or -1 while the stage gives no
// measure (one GPU call), and the stage in words.
using JobProgress = std::function<void(int percent, const QString& stage)>;

// A fraction done (0..1, or negative when unknown) as JobProgress's percent.
inline int progressPercent(double fraction) {
    return fraction < 0 ? -1 : static_cast<int>(std::floor(std::min(fraction, 1.0) * 100));
}

template <typename Request, typename Result>
class ComputeJob : public JobBase {
public:
    using Run = std::function<Result(const Request&, const std::atomic<bool>* cancel, const JobProgress& progress)>;
    // Names the work in the messages that have no text of their own ("inverting 1200 matrices of 4 x 4").
    using Doing = std::function<QString(const Request&)>;

    // Each job defines this one as an explicit specialization in its .cpp, handing its run function
    // and "doing" text to the constructor below; the job's header declares it and names the
    // specialization (using XJob = ComputeJob<XRequest, XResult>), so no job needs a class of its own.
    explicit ComputeJob(QObject* parent = nullptr);

    // run: Result(const Request&, cancel) or Result(const Request&, cancel, const JobProgress&).
    // The destructor cancels and waits (JobRunner).
    template <typename F>
    ComputeJob(QObject* parent, F run, Doing doing)
        : JobBase(parent, m_runner),
          m_run(withProgress(std::move(run))),
          m_doing(std::move(doing)),
          m_runner(this, {[this](const Result& result) { emit finished(QVariant::fromValue(result)); },
                          [this](const QString& message) { emit failed(message); }, [this] { emit cancelled(); }}) {
        qRegisterMetaType<Result>();
    }
    template <typename F>
    ComputeJob(QObject* parent, F run, const QString& doing)
        : ComputeJob(parent, std::move(run), Doing([doing](const Request&) { return doing; })) {}

    // Starts the work on a pool thread and emits started(); false (and nothing started) while a run is going.
    bool start(const Request& request) {
        // Progress crosses to the owner's thread only when the percent or the stage changes.
        auto deliver = queuedTo(this, [this](int percent, const QString& stage) { emit progress(percent, stage); });
        auto last = std::make_shared<std::pair<int, QString>>(-2, QString());
        JobProgress report = [deliver, last](int percent, const QString& stage) {
            if (last->first == percent && last->second == stage) return;
            *last = {percent, stage};
            deliver(percent, stage);
        };
        if (!m_runner.start([run = m_run, request, report](const std::atomic<bool>* cancel) { return run(request, cancel, report); },
                            m_doing(request)))
            return false;
        emit started();
        return true;
    }

    // Connects f(const Result&) to finished(): f is a member function of context or a callable; it
    // runs on the owner's thread and is disconnected with context.
    template <typename Context, typename F>
    QMetaObject::Connection onFinished(Context* context, F f) {
        return QObject::connect(this, &JobBase::finished, context, [context, f](const QVariant& value) {
            const Result result = value.value<Result>();
            if constexpr (std::is_member_function_pointer_v<F>) (context->*f)(result);
            else f(result);
        });
    }

private:
    template <typename F>
    static Run withProgress(F run) {
        if constexpr (std::is_invocable_v<F&, const Request&, const std::atomic<bool>*, const JobProgress&>)
            return run;
        else
            return [run](const Request& request, const std::atomic<bool>* cancel, const JobProgress&) { return run(request, cancel); };
    }

    Run m_run;
    Doing m_doing;
    JobRunner<Result> m_runner;
};

} // namespace spyglass::app
