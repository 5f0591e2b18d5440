// The device query is asked once per cache, never on the GUI thread: every way of reading it
// (current, get, whenReady, start again) shares the one answer.
#include "core/deviceinfocache.h"

#include <QSignalSpy>
#include <QThread>
#include <QtConcurrent>
#include <QtTest>

#include <atomic>

using namespace spyglass;
using spyglass::app::DeviceInfoCache;

class TestDeviceInfoCache : public QObject {
    Q_OBJECT
private slots:
    void theQueryRunsOnceOffTheGuiThread() {
        std::atomic<int> calls{0};
        std::atomic<QThread*> ranOn{nullptr};
        DeviceInfoCache cache([&] {
            ++calls;
            ranOn = QThread::currentThread();
            QThread::msleep(50);  // long enough for the readers below to find it still running
            DeviceInfo info;
            info.present = true;
            info.name = "Test GPU";
            return info;
        });
        QSignalSpy ready(&cache, &DeviceInfoCache::ready);
        QVERIFY(!cache.current());  // starts it; no answer yet
        cache.start();
        int appliedEarly = 0, appliedLate = 0;
        cache.whenReady(this, [&](const DeviceInfo& info) {
            ++appliedEarly;
            QCOMPARE(QString::fromStdString(info.name), QStringLiteral("Test GPU"));
        });
        // A worker thread may block on it.
        const DeviceInfo fromWorker = QtConcurrent::run([&cache] { return cache.get(); }).result();
        QVERIFY(fromWorker.present);
        QVERIFY(ready.wait(5000));
        QCOMPARE(appliedEarly, 1);
        cache.whenReady(this, [&](const DeviceInfo& info) { appliedLate += info.present ? 1 : 0; });
        QCOMPARE(appliedLate, 1);  // the answer is there: applied at once
        QVERIFY(cache.current());
        QCOMPARE(QString::fromStdString(cache.current()->name), QStringLiteral("Test GPU"));
        cache.start();
        QTest::qWait(20);
        QCOMPARE(calls.load(), 1);
        QCOMPARE(ready.count(), 1);
        QVERIFY(ranOn.load() != nullptr);
        QVERIFY(ranOn.load() != QThread::currentThread());
        QVERIFY(ranOn.load() != qApp->thread());
    }

    void theSharedCacheIsOneAndAnswersWithoutADevice() {
        DeviceInfoCache& shared = DeviceInfoCache::shared();
        QCOMPARE(&DeviceInfoCache::shared(), &shared);
        const DeviceInfo info = QtConcurrent::run([&shared] { return shared.get(); }).result();
        QTRY_VERIFY(shared.current().has_value());
        QCOMPARE(shared.current()->present, info.present);
        if (!info.present) QVERIFY(!info.reason.empty());  // the state says why, for the panels' notes
    }
};

QTEST_MAIN(TestDeviceInfoCache)
#include "tst_deviceinfocache.moc"
