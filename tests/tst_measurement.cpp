// The measurement engine (spyglass/measurement.h): a slow first call is timed apart and kept out of
// the median, the warm-up runs untimed, the restore step runs before every call, bad counts are
// refused by name; the GUI/CLI text and JSON say the same. The GPU half (CUDA events) is in
// tst_cuda_measurement.
#include "core/timingtext.h"

#include "spyglass/error.h"
#include "spyglass/measurement.h"

#include <QJsonObject>
#include <QtTest>

#include <chrono>
#include <thread>

using namespace spyglass;

class TestMeasurement : public QObject {
    Q_OBJECT

private slots:
    // A first call 200 ms slower than the rest (as a kernel whose module loads then): it lands in
    // coldMs, and neither the median nor the max of the timed runs sees it (the margin is wide so that
    // a loaded 2-core CI machine oversleeping the 1 ms calls cannot blur it).
    void slowFirstCallIsKeptOutOfTheMedian() {
        int calls = 0;
        const Measurement m = measureRepeated(
            [&] {
                const double ms = calls++ == 0 ? 200.0 : 1.0;
                std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
                return -1.0;
            },
            TimingOptions{2, 5});
        QCOMPARE(calls, 1 + 2 + 5);
        QCOMPARE(m.repeats, 5);
        QCOMPARE(m.warmup, 2);
        QCOMPARE(m.clock, TimingClock::SteadyClock);
        QVERIFY2(m.coldMs >= 200.0, qPrintable(QString::number(m.coldMs)));
        QVERIFY2(m.maxMs < 100.0, qPrintable(QString::number(m.maxMs)));
        QVERIFY(m.minMs >= 1.0 && m.minMs <= m.medianMs && m.medianMs <= m.maxMs);
    }

    // Times the callee measured itself (CUDA events in the library) are taken as they are: the
    // median of 5, 1, 3 (after the cold 100 and the warm-up 7) is 3.
    void selfTimedRunsGiveTheirOwnMedian() {
        const std::vector<double> reported{100, 7, 5, 1, 3};
        std::size_t next = 0;
        const Measurement m = measureRepeated([&] { return reported[next++]; }, TimingOptions{1, 3});
        QCOMPARE(m.clock, TimingClock::CudaEvents);
        QCOMPARE(m.coldMs, 100.0);
        QCOMPARE(m.medianMs, 3.0);
        QCOMPARE(m.minMs, 1.0);
        QCOMPARE(m.maxMs, 5.0);
    }

    void withoutColdCallEveryCallIsWarmUpOrTimed() {
        int calls = 0;
        const Measurement m = measureRepeated([&] { return double(++calls); }, TimingOptions{0, 4}, {}, false);
        QCOMPARE(calls, 4);
        QCOMPARE(m.coldMs, -1.0);
        QCOMPARE(m.medianMs, 2.5);  // 1, 2, 3, 4
    }

    // The restore step (an input the work overwrites) runs before every call, never inside it.
    void restoreRunsBeforeEveryCall() {
        int restored = 0, ran = 0;
        bool inputFresh = false;
        measureRepeated(
            [&] {
                if (!inputFresh) return 1e9;  // a call on a stale input would show as a huge time
                inputFresh = false;
                ++ran;
                return 1.0;
            },
            TimingOptions{3, 7},
            [&] {
                ++restored;
                inputFresh = true;
            });
        QCOMPARE(ran, 1 + 3 + 7);
        QCOMPARE(restored, ran);
    }

    void badCountsAreRefusedByName() {
        for (const TimingOptions& bad : {TimingOptions{-1, 5}, TimingOptions{3, 0}, TimingOptions{0, 100001}}) {
            try {
                measureRepeated([] { return 1.0; }, bad);
                QFAIL("accepted a bad count");
            } catch (const InputError& e) {
                QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("timed runs")), e.what());
            }
        }
    }

    void medianOfEvenAndOddSamples() {
        QCOMPARE(medianOf({}), 0.0);
        QCOMPARE(medianOf({4, 1, 9}), 4.0);
        QCOMPARE(medianOf({4, 1, 9, 2}), 3.0);
    }

    // The words and fields every tab and command uses.
    void textAndJsonCarryEveryField() {
        Measurement m;
        m.clock = TimingClock::CudaEvents;
        m.medianMs = 0.0123;
        m.minMs = 0.012;
        m.maxMs = 0.0131;
        m.repeats = 20;
        m.warmup = 3;
        m.coldMs = 35.19;
        m.uploadMs = 1.5;
        m.cacheFlushed = true;
        QCOMPARE(app::timingText(m), QStringLiteral("0.0123 ms (0.0120–0.0131)"));
        const QString how = app::timingTooltip(m);
        for (const char* word : {"median of 20 timed runs", "3 warm-up", "CUDA events", "L2 cache flushed", "cold", "35.19", "upload"})
            QVERIFY2(how.contains(QLatin1String(word)), qPrintable(how));
        QVERIFY(!how.contains(QLatin1String("download")));  // not measured: not mentioned
        const QJsonObject o = app::timingJson(m);
        QCOMPARE(o.value(QStringLiteral("median_ms")).toDouble(), 0.0123);
        QCOMPARE(o.value(QStringLiteral("cold_ms")).toDouble(), 35.19);
        QCOMPARE(o.value(QStringLiteral("repeats")).toInt(), 20);
        QVERIFY(o.contains(QStringLiteral("upload_ms")) && !o.contains(QStringLiteral("download_ms")));
        Measurement vendor = m;
        vendor.medianMs = 0.0246;
        QCOMPARE(app::speedupOver(vendor, m), 2.0);
        QCOMPARE(app::speedupText(2.0), QStringLiteral("2.00× the vendor"));
        QVERIFY(app::speedupText(0.5).contains(QLatin1String("slower")));
    }
};

QTEST_GUILESS_MAIN(TestMeasurement)
#include "tst_measurement.moc"
