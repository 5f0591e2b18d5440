#pragma once
// The plumbing every compute job shares, written once. A job is a Request, a Result, a plain
// function `Result runX(const Request&, const std::atomic<bool>* cancel, ...)` (the one the
// command-line tool and the tests call synchronously) and a thin QObject with typed signals that
// holds a JobRunner<Result>. The runner runs the function on a pool thread with a fresh cancel flag,
// stops every exception at the worker boundary and delivers exactly one of finished / failed /
// cancelled on the owner's thread; failures carry errorText()'s message, the same text the CLI prints.
// The QObject that holds the runner and emits the signals is ComputeJob (computejob.h) over JobBase.
#include "errortext.h"

#include "spyglass/error.h"

#include <QFutureWatcher>
#include <QMetaObject>
#include <QObject>
#include <QString>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <functional>
#include <memory>
#include <new>
#include <tuple>
#include <utility>

namespace spyglass::app {

// How one run ended, as it crosses back to the owner's thread: a result, a message, or cancelled.
template <typename Result>
struct JobOutcome {
    std::shared_ptr<Result> result;
    QString error;
    bool cancelled = false;
};

// Runs work(cancel) and turns its exceptions into an outcome: CancelledError is a cancel, not a
// failure; `doing` ("decomposing the batch") names the work in the messages that have no text of
// their own (out of memory, an exception of no known type).
template <typename Result, typename Work>
JobOutcome<Result> runJobWork(Work& work, const std::atomic<bool>* cancel, const QString& doing) {
    JobOutcome<Result> outcome;
    try {
        outcome.result = std::make_shared<Result>(work(cancel));
    } catch (const CancelledError&) {
        outcome.cancelled = true;
    } catch (const std::bad_alloc&) {
        outcome.error = QStringLiteral("out of memory while %1").arg(doing);
    } catch (const std::exception& error) {
        outcome.error = errorText(error);
    } catch (...) {
        outcome.error = QStringLiteral("unknown failure while %1").arg(doing);
    }
    return outcome;
}

// A callable for the worker thread that runs deliver(args...) on owner's thread, queued, so that a
// job's progress signal is emitted where its receivers live. Qt drops calls queued for an owner
// deleted before they are delivered, and the owner's JobRunner waits for the worker, so deliver
// never runs on a dead object.
template <typename Deliver>
auto queuedTo(QObject* owner, Deliver deliver) {
    return [owner, deliver](const auto&... args) {
        QMetaObject::invokeMethod(owner, [deliver, values = std::make_tuple(args...)] { std::apply(deliver, values); },
                                  Qt::QueuedConnection);
    };
}

// What a runner's owner may ask whatever the result type: is a run going, and stop it.
class JobControl {
public:
    // From start() until the outcome has been delivered (the future ends a little earlier, before
    // the watcher's signal arrives; a start in between would lose the first outcome).
    bool isRunning() const { return m_busy; }
    void cancel() {
        if (m_cancel) m_cancel->store(true);
    }

protected:
    std::shared_ptr<std::atomic<bool>> m_cancel;  // a fresh flag per run
    bool m_busy = false;
};

template <typename Result>
class JobRunner : public JobControl {
public:
    using Work = std::function<Result(const std::atomic<bool>* cancel)>;
    // Called on the owner's thread, one per run; busy is already false, so a handler may start the next run.
    struct Delivery {
        std::function<void(const Result&)> finished;
        std::function<void(const QString& message)> failed;
        std::function<void()> cancelled;
    };

    JobRunner(QObject* owner, Delivery delivery) : m_delivery(std::move(delivery)) {
        QObject::connect(&m_watcher, &QFutureWatcherBase::finished, owner, [this] { deliver(); });
    }
    // Cancels and waits: the worker never outlives the job that owns it.
    ~JobRunner() {
        cancel();
        m_watcher.waitForFinished();
    }
    JobRunner(const JobRunner&) = delete;
    JobRunner& operator=(const JobRunner&) = delete;

    // Starts work on a pool thread; false (and nothing started) while a run is going.
    bool start(Work work, const QString& doing) {
        if (m_busy) return false;
        m_busy = true;
        // A fresh flag per run: a cancel meant for the previous run cannot stop this one.
        m_cancel = std::make_shared<std::atomic<bool>>(false);
        m_watcher.setFuture(QtConcurrent::run([work = std::move(work), cancel = m_cancel, doing]() mutable {
            return runJobWork<Result>(work, cancel.get(), doing);
        }));
        return true;
    }

private:
    void deliver() {
        const JobOutcome<Result> outcome = m_watcher.result();
        m_busy = false;
        // A cancel asked for before the outcome is delivered wins, even when the work had just
        // finished: the user pressed Cancel, so no result appears after it.
        if (outcome.cancelled || (outcome.result && m_cancel && m_cancel->load())) {
            if (m_delivery.cancelled) m_delivery.cancelled();
        } else if (outcome.result) {
            if (m_delivery.finished) m_delivery.finished(*outcome.result);
        } else if (m_delivery.failed) {
            m_delivery.failed(outcome.error);
        }
    }

    Delivery m_delivery;
    QFutureWatcher<JobOutcome<Result>> m_watcher;
};

} // namespace spyglass::app
