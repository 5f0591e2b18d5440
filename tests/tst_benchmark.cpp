// The benchmark harness: median and spread of known callback times, the ratio to the vendor baseline,
// and reports that parse (JSON) and list every result (Markdown).
#include "spyglass/benchmark.h"
#include "spyglass/error.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <limits>
#include <random>

using namespace spyglass;

namespace {

// A callback that replays a fixed list of "measured" times and counts its calls.
struct ReplayedTimes {
    std::vector<double> times;
    std::size_t calls = 0;
    double operator()() { return times[calls++ % times.size()]; }
};

bench::Row makeRow(const std::string& benchmark, const std::string& variant, double medianMs, bool baseline,
                   double bytes = 0) {
    bench::Row row;
    row.benchmark = benchmark;
    row.variant = variant;
    row.isBaseline = baseline;
    row.time.medianMs = row.time.minMs = row.time.maxMs = medianMs;
    row.time.repeats = 5;
    row.bytes = bytes;
    return row;
}

// The report's JSON results, one object a row.
QJsonArray resultsOf(const bench::Report& report) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(report.toJson())).object().value("results").toArray();
}

// A report with failing rows: exit code 1, the failures named in order, a check column in the
// Markdown that says each of `words`, and each JSON result's "passed" as `passed` says.
void verifyFailingReport(const bench::Report& report, const std::vector<std::string>& failed, const QStringList& words,
                         const std::vector<bool>& passed) {
    const auto failures = report.failures();
    QCOMPARE(failures.size(), failed.size());
    for (std::size_t k = 0; k < failed.size(); ++k) QCOMPARE(failures[k].variant, failed[k]);
    QCOMPARE(report.exitCode(), 1);
    const QString markdown = QString::fromStdString(report.toMarkdown());
    QVERIFY(markdown.contains("| check |"));
    for (const QString& word : words) QVERIFY2(markdown.contains(word), qPrintable(word));
    const auto results = resultsOf(report);
    for (std::size_t k = 0; k < passed.size(); ++k) QCOMPARE(results[int(k)].toObject().value("passed").toBool(), bool(passed[k]));
}

} // namespace

class TestBenchmark : public QObject {
    Q_OBJECT

private slots:
    void measureSkipsWarmupAndTakesMedianOfOddRepeats() {
        // The warm-up values are huge: if they leaked into the timed set the max would show it.
        ReplayedTimes replay{{1000.0, 1000.0, 5.0, 1.0, 4.0, 2.0, 3.0}};
        const auto summary = bench::measure(std::ref(replay), 2, 5);
        QCOMPARE(replay.calls, std::size_t(7));
        QCOMPARE(summary.repeats, 5);
        QCOMPARE(summary.medianMs, 3.0);
        QCOMPARE(summary.minMs, 1.0);
        QCOMPARE(summary.maxMs, 5.0);
    }

    void measureAveragesTheTwoMiddleValuesOfEvenRepeats() {
        ReplayedTimes replay{{8.0, 2.0, 6.0, 4.0}};
        const auto summary = bench::measure(std::ref(replay), 0, 4);
        QCOMPARE(summary.medianMs, 5.0);
        QCOMPARE(summary.minMs, 2.0);
        QCOMPARE(summary.maxMs, 8.0);
    }

    void measureMedianMatchesSortedRandomTimes() {
        std::mt19937 rng(20240611);
        std::uniform_real_distribution<double> dist(0.1, 10.0);
        for (int repeats : {1, 2, 7, 20, 33}) {
            ReplayedTimes replay;
            for (int i = 0; i < repeats; ++i) replay.times.push_back(dist(rng));
            std::vector<double> sorted = replay.times;
            std::sort(sorted.begin(), sorted.end());
            const double expected = repeats % 2 ? sorted[repeats / 2] : 0.5 * (sorted[repeats / 2 - 1] + sorted[repeats / 2]);
            const auto summary = bench::measure(std::ref(replay), 0, repeats);
            QCOMPARE(summary.medianMs, expected);
            QCOMPARE(summary.minMs, sorted.front());
            QCOMPARE(summary.maxMs, sorted.back());
        }
    }

    void measureRejectsZeroRepeats() {
        QVERIFY_THROWS_EXCEPTION(InputError, bench::measure([] { return 1.0; }, 0, 0));
    }

    void speedupIsBaselineMedianOverRowMedian() {
        bench::Report report("t", "test device");
        report.add(makeRow("spmv A", "cuSPARSE", 6.0, true));
        report.add(makeRow("spmv B", "cuSPARSE", 100.0, true));
        const auto ours = makeRow("spmv A", "ours", 2.0, false);
        QCOMPARE(report.speedupOverBaseline(ours), 3.0);
        // A later baseline of the same benchmark replaces the earlier one.
        report.add(makeRow("spmv A", "cuSPARSE again", 4.0, true));
        QCOMPARE(report.speedupOverBaseline(ours), 2.0);
        // No baseline of that benchmark: no ratio.
        QCOMPARE(report.speedupOverBaseline(makeRow("other", "ours", 1.0, false)), 0.0);
    }

    void gbPerSecondIsBytesOverMedianTime() {
        const auto row = makeRow("copy", "memcpy", 2.0, false, 4e9);  // 4 GB in 2 ms
        QCOMPARE(row.gbPerSecond(), 2000.0);
    }

    void jsonParsesAndHoldsEveryRow() {
        bench::Report report("SpMV \"quoted\" title", "NVIDIA Test\tGPU");
        report.setPeakBandwidth(3000.0);
        report.add(makeRow("spmv A", "cuSPARSE", 6.0, true, 6e6));
        report.add(makeRow("spmv A", "ours|fast", 3.0, false, 6e6));
        auto unmeasured = makeRow("spmv A", "broken", 0.0, false);
        unmeasured.note = "line1\nline2";
        report.add(unmeasured);
        QJsonParseError error{};
        const auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(report.toJson()), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const auto root = doc.object();
        QCOMPARE(root.value("title").toString(), QString("SpMV \"quoted\" title"));
        QCOMPARE(root.value("device").toString(), QString("NVIDIA Test\tGPU"));
        QVERIFY(!root.value("date").toString().isEmpty());
        const auto results = root.value("results").toArray();
        QCOMPARE(results.size(), 3);
        QCOMPARE(results[1].toObject().value("variant").toString(), QString("ours|fast"));
        QCOMPARE(results[1].toObject().value("speedupOverBaseline").toDouble(), 2.0);
        QCOMPARE(results[1].toObject().value("gbPerSecond").toDouble(), 2.0);
        QCOMPARE(results[0].toObject().value("isBaseline").toBool(), true);
        QCOMPARE(results[2].toObject().value("note").toString(), QString("line1\nline2"));
    }

    void emptyReportIsValidJson() {
        bench::Report report("empty", "none");
        QJsonParseError error{};
        const auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(report.toJson()), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(doc.object().value("results").toArray().size(), 0);
    }

    void markdownHasOneTableRowPerResult() {
        bench::Report report("Title", "Device X");
        const int count = 7;
        for (int i = 0; i < count; ++i)
            report.add(makeRow("bench " + std::to_string(i), i % 2 ? "a|b" : "plain", 1.0 + i, i == 0));
        const QString markdown = QString::fromStdString(report.toMarkdown());
        QVERIFY(markdown.contains("Device X"));
        int tableLines = 0;
        for (const QString& line : markdown.split('\n'))
            if (line.startsWith('|')) ++tableLines;
        QCOMPARE(tableLines, count + 2);  // header, separator, one per result
        for (int i = 0; i < count; ++i) QVERIFY(markdown.contains(QString("| bench %1 |").arg(i)));
    }

    void aRowWithoutACheckFailsUnlessLabelledInformational() {
        // A timing nobody checked must not slip into a table: no bound and no reason fails the run.
        bench::Report report("t", "d");
        auto unchecked = makeRow("b", "unchecked", 1.0, false);
        unchecked.error = 1e9;
        QVERIFY(!unchecked.hasCheck());
        QVERIFY(!unchecked.passed());
        QCOMPARE(bench::checkStatus(unchecked), std::string("NO CHECK"));
        auto ceiling = makeRow("b", "copy bandwidth", 1.0, false);
        ceiling.setInformational("the device's copy ceiling: no result to compare");
        QVERIFY(ceiling.passed());
        QCOMPARE(bench::checkStatus(ceiling), std::string("informational"));
        report.add(ceiling);
        QCOMPARE(report.exitCode(), 0);
        report.add(unchecked);
        verifyFailingReport(report, {"unchecked"}, {"informational: the device's copy ceiling", "NO CHECK"}, {true, false});
        QVERIFY(!resultsOf(report)[0].toObject().contains("errorBound"));
    }

    void aRowFailsAboveItsBoundOrWhenItsCheckDidNotRun() {
        bench::Report report("t", "d");
        auto within = makeRow("b", "within", 1.0, false);
        within.setCheck(0.5, 1.0);
        auto atBound = makeRow("b", "at bound", 1.0, false);
        atBound.setCheck(0.0, 0.0);  // exact comparison: 0 mismatches, bound 0
        auto above = makeRow("b", "above", 1.0, false);
        above.setCheck(1.5, 1.0);
        auto nan = makeRow("b", "nan", 1.0, false);
        nan.setCheck(std::numeric_limits<double>::quiet_NaN(), 1.0);
        auto notRun = makeRow("b", "not run", 1.0, false);
        notRun.errorBound = 1.0;  // a bound was set but the comparison never happened
        QVERIFY(within.passed() && atBound.passed());
        QVERIFY(!above.passed() && !nan.passed() && !notRun.passed());
        QCOMPARE(bench::checkStatus(within), std::string("ok"));
        QCOMPARE(bench::checkStatus(notRun), std::string("NOT CHECKED"));
        for (const auto& row : {within, atBound}) report.add(row);
        QCOMPARE(report.exitCode(), 0);
        for (const auto& row : {above, nan, notRun}) report.add(row);
        verifyFailingReport(report, {"above", "nan", "not run"}, {"NOT CHECKED", "3 of the rows FAILED"},
                            {true, true, false, false, false});
        const auto results = resultsOf(report);
        QCOMPARE(results[4].toObject().value("checked").toBool(), false);
        QCOMPARE(results[4].toObject().value("errorBound").toDouble(), 1.0);
    }

    void targetsAppearInMarkdownAndJson() {
        bench::Report report("t", "d");
        report.add(makeRow("b", "v", 1.0, true));
        report.addTarget({"speed-up >= 2x", "2.31x", bench::Target::Status::Met});
        report.addTarget({"bandwidth | >= 75 %", "", bench::Target::Status::NotMeasured});
        const QString markdown = QString::fromStdString(report.toMarkdown());
        QVERIFY(markdown.contains("## Targets"));
        QVERIFY(markdown.contains("| speed-up >= 2x | 2.31x | met |"));
        QVERIFY(markdown.contains("| bandwidth \\| >= 75 % | - | not measured in this run |"));
        QJsonParseError error{};
        const auto root = QJsonDocument::fromJson(QByteArray::fromStdString(report.toJson()), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        const auto targets = root.value("targets").toArray();
        QCOMPARE(targets.size(), 2);
        QCOMPARE(targets[0].toObject().value("status").toString(), QString("met"));
        QCOMPARE(targets[1].toObject().value("goal").toString(), QString("bandwidth | >= 75 %"));
        QCOMPARE(root.value("results").toArray().size(), 1);
    }

    void writeCreatesBothFiles() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        bench::Report report("w", "d");
        report.add(makeRow("b", "v", 1.0, true));
        const std::string stem = dir.filePath("result").toStdString();
        report.write(stem);
        QFile json(QString::fromStdString(stem + ".json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(json.readAll()).object().value("results").toArray().size(), 1);
        QVERIFY(QFile::exists(QString::fromStdString(stem + ".md")));
    }
};

QTEST_GUILESS_MAIN(TestBenchmark)
#include "tst_benchmark.moc"
