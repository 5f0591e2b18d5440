// The job template every compute job holds (app/core/job.h; ComputeJob, computejob.h): the work runs
// on a pool thread, its progress arrives on the owner's thread, a cancel is reported as cancelled (never failed), an
// exception as failed with errorText()'s message, a second start while a run is going is refused,
// and a handler may start the next run.
#include "core/errortext.h"
#include "core/computejob.h"
#include "core/jobbase.h"

#include "spyglass/error.h"

#include <QObject>
#include <QSignalSpy>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

using namespace spyglass;
using namespace spyglass::app;

namespace {

// A job as the real ones are written: JobBase, typed signals, a JobRunner member, the work a plain function.
class ProbeJob : public JobBase {
    Q_OBJECT
public:
    using Work = std::function<int(const std::atomic<bool>* cancel, const std::function<void(int)>& progress)>;

    ProbeJob()
        : JobBase(nullptr, m_runner),
          m_runner(this, {[this](const int& value) { emit finished(value); }, [this](const QString& message) { emit failed(message); },
                          [this] { emit cancelled(); }}) {}

    bool start(Work work) {
        auto progressHere = queuedTo(this, [this](int step) {
            m_progressThreads.append(QThread::currentThread());
            emit progress(step);
        });
        return m_runner.start([work, progressHere](const std::atomic<bool>* cancel) { return work(cancel, progressHere); },
                              QStringLiteral("probing"));
    }
    const QList<QThread*>& progressThreads() const { return m_progressThreads; }

signals:
    void progress(int step);
    void finished(int value);

private:
    QList<QThread*> m_progressThreads;
    JobRunner<int> m_runner;
};

// Waits (off the GUI thread) until the test opens the gate or the job is cancelled.
void waitFor(const std::atomic<bool>& gate, const std::atomic<bool>* cancel) {
    while (!gate.load() && !(cancel && cancel->load())) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

} // namespace

class TestJob : public QObject {
    Q_OBJECT
private slots:
    void progressArrivesOnTheOwnersThread() {
        ProbeJob job;
        QSignalSpy progress(&job, &ProbeJob::progress);
        QSignalSpy finished(&job, &ProbeJob::finished);
        std::atomic<QThread*> worker{nullptr};
        QVERIFY(job.start([&worker](const std::atomic<bool>*, const std::function<void(int)>& report) {
            worker = QThread::currentThread();
            for (int step = 1; step <= 3; ++step) report(step);
            return 42;
        }));
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.at(0).at(0).toInt(), 42);
        QTRY_COMPARE(progress.count(), 3);
        QCOMPARE(progress.at(2).at(0).toInt(), 3);
        QVERIFY(worker.load() != nullptr);
        QVERIFY(worker.load() != QThread::currentThread());
        for (QThread* thread : job.progressThreads()) QCOMPARE(thread, QThread::currentThread());
    }

    void cancelIsReportedAsCancelledNotFailed() {
        ProbeJob job;
        QSignalSpy finished(&job, &ProbeJob::finished);
        QSignalSpy failed(&job, &ProbeJob::failed);
        QSignalSpy cancelled(&job, &ProbeJob::cancelled);
        const std::atomic<bool> never{false};
        QVERIFY(job.start([&never](const std::atomic<bool>* cancel, const std::function<void(int)>&) {
            waitFor(never, cancel);
            if (cancel->load()) throw CancelledError();
            return 1;
        }));
        job.cancel();
        QVERIFY(cancelled.wait(10000));
        QCOMPARE(cancelled.count(), 1);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.count(), 0);
        QVERIFY(!job.isRunning());
    }

    void aCancelBeforeStartDoesNotStopTheNextRun() {
        ProbeJob job;
        job.cancel();  // nothing running: no effect on what comes later
        QSignalSpy finished(&job, &ProbeJob::finished);
        QVERIFY(job.start([](const std::atomic<bool>* cancel, const std::function<void(int)>&) {
            if (cancel->load()) throw CancelledError();
            return 7;
        }));
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.at(0).at(0).toInt(), 7);
    }

    void aCancelBeforeTheOutcomeIsDeliveredWins() {
        ProbeJob job;
        QSignalSpy outcomes(&job, &ProbeJob::cancelled);
        connect(&job, &ProbeJob::finished, &job, [] { QFAIL("a finished result arrived after cancel()"); });
        std::atomic<bool> done{false};
        QVERIFY(job.start([&done](const std::atomic<bool>*, const std::function<void(int)>&) {
            done = true;
            return 7;  // finishes without looking at the flag
        }));
        // Wait without running this thread's event loop: the outcome is queued, not yet delivered.
        while (!done.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        job.cancel();
        QVERIFY(outcomes.wait(10000));
        QVERIFY(!job.isRunning());
    }

    void anExceptionIsReportedAsFailedWithErrorText() {
        ProbeJob job;
        QSignalSpy finished(&job, &ProbeJob::finished);
        QSignalSpy failed(&job, &ProbeJob::failed);
        const DeviceError error("GPU out of memory: 12 GB asked", "src/cuda/kernels.cu", 77);
        QVERIFY(job.start([error](const std::atomic<bool>*, const std::function<void(int)>&) -> int { throw error; }));
        QVERIFY(failed.wait(10000));
        QCOMPARE(finished.count(), 0);
        // The message first, the place last: errorText's form, the same the command-line tool prints.
        QCOMPARE(failed.at(0).at(0).toString(), errorText(error));
        QVERIFY(failed.at(0).at(0).toString().startsWith(QStringLiteral("GPU out of memory")));
    }

    void runningOutOfMemoryNamesTheWork() {
        ProbeJob job;
        QSignalSpy failed(&job, &ProbeJob::failed);
        QVERIFY(job.start([](const std::atomic<bool>*, const std::function<void(int)>&) -> int { throw std::bad_alloc(); }));
        QVERIFY(failed.wait(10000));
        QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("out of memory while probing"));
    }

    void aSecondStartWhileBusyIsRefused() {
        ProbeJob job;
        QSignalSpy finished(&job, &ProbeJob::finished);
        std::atomic<bool> gate{false};
        QVERIFY(job.start([&gate](const std::atomic<bool>*, const std::function<void(int)>&) {
            waitFor(gate, nullptr);
            return 1;
        }));
        QVERIFY(job.isRunning());
        bool secondRan = false;
        QVERIFY(!job.start([&secondRan](const std::atomic<bool>*, const std::function<void(int)>&) {
            secondRan = true;
            return 2;
        }));
        gate = true;
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(0).toInt(), 1);
        QVERIFY(!secondRan);
        QVERIFY(!job.isRunning());
    }

    void aHandlerMayStartTheNextRun() {
        // Busy ends before the outcome is delivered: a panel that re-runs on finished can.
        ProbeJob job;
        QSignalSpy finished(&job, &ProbeJob::finished);
        bool restarted = false;
        connect(&job, &ProbeJob::finished, &job, [&job, &restarted](int value) {
            if (value == 1) restarted = job.start([](const std::atomic<bool>*, const std::function<void(int)>&) { return 2; });
        });
        QVERIFY(job.start([](const std::atomic<bool>*, const std::function<void(int)>&) { return 1; }));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 10000);
        QVERIFY(restarted);
        QCOMPARE(finished.at(1).at(0).toInt(), 2);
    }

    void aComputeJobAnnouncesItsStartAndDeliversTheTypedResult() {
        ComputeJob<int, QString> job(
            nullptr,
            [](const int& n, const std::atomic<bool>*, const JobProgress& progress) {
                progress(50, QStringLiteral("half"));
                progress(50, QStringLiteral("half"));  // unchanged: not sent again
                progress(100, QStringLiteral("done"));
                return QString::number(2 * n);
            },
            QStringLiteral("doubling"));
        QSignalSpy started(&job, &JobBase::started);
        QSignalSpy progress(&job, &JobBase::progress);
        QSignalSpy finished(&job, &JobBase::finished);
        QString typed;
        job.onFinished(&job, [&typed](const QString& result) { typed = result; });
        QVERIFY(job.start(21));
        QCOMPARE(started.count(), 1);
        QVERIFY(finished.wait(10000));
        QCOMPARE(typed, QStringLiteral("42"));
        QCOMPARE(finished.at(0).at(0).value<QString>(), QStringLiteral("42"));
        QTRY_COMPARE(progress.count(), 2);
        QCOMPARE(progress.at(0).at(0).toInt(), 50);
        QCOMPARE(progress.at(1).at(1).toString(), QStringLiteral("done"));
    }

    void theDestructorCancelsAndWaits() {
        std::atomic<bool> stopped{false};
        const std::atomic<bool> never{false};
        {
            ProbeJob job;
            QVERIFY(job.start([&never, &stopped](const std::atomic<bool>* cancel, const std::function<void(int)>&) -> int {
                waitFor(never, cancel);
                stopped = true;
                throw CancelledError();
            }));
        }
        QVERIFY(stopped.load());
    }
};

QTEST_GUILESS_MAIN(TestJob)
#include "tst_job.moc"
