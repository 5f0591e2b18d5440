// TimingChart, HistogramChart and LineChart: the histogram counts every usable value exactly once in
// the right bin (linear and log10), the line chart draws what a log axis can show and counts the rest,
// and the charts accept empty and degenerate inputs.
#include "histogramchart.h"
#include "linechart.h"
#include "timingchart.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>

using namespace spyglass::widgets;

class TestCharts : public QObject {
    Q_OBJECT
private slots:
    void histogramCountsEveryValueInItsBin() {
        std::mt19937 rng(99);
        std::uniform_real_distribution<double> u(-3.0, 5.0);
        QVector<double> values(1001);
        for (double& v : values) v = u(rng);
        HistogramChart chart;
        const int bins = 17;
        chart.setValues(values, bins, QStringLiteral("x"));
        const QVector<double> counts = chart.binCounts();
        QCOMPARE(counts.size(), bins);
        QCOMPARE(std::accumulate(counts.begin(), counts.end(), 0.0), double(values.size()));
        const double lo = *std::min_element(values.begin(), values.end());
        const double hi = *std::max_element(values.begin(), values.end());
        QVector<double> expected(bins, 0);
        for (double v : values) expected[std::min(int((v - lo) / ((hi - lo) / bins)), bins - 1)] += 1;
        QCOMPARE(counts, expected);
    }

    void log10HistogramSkipsNonPositiveAndBinsByDecade() {
        // Two values per decade from 1e-12 to 1e-3: ten decades in ten bins, two in each.
        QVector<double> values;
        for (int e = -12; e <= -3; ++e) values << std::pow(10.0, e) << 3 * std::pow(10.0, e);
        values << 0.0 << -1.0 << std::numeric_limits<double>::quiet_NaN();
        HistogramChart chart;
        chart.setLog10(true);
        chart.setValues(values, 10, QStringLiteral("residual"));
        QCOMPARE(chart.skipped(), 3);
        const QVector<double> counts = chart.binCounts();
        QCOMPARE(std::accumulate(counts.begin(), counts.end(), 0.0), 20.0);
        QCOMPARE(counts.first(), 2.0);
    }

    void equalValuesFallInOneBin() {
        HistogramChart chart;
        chart.setValues(QVector<double>(7, 2.5), 5);
        const QVector<double> counts = chart.binCounts();
        QCOMPARE(std::accumulate(counts.begin(), counts.end(), 0.0), 7.0);
        QCOMPARE(*std::max_element(counts.begin(), counts.end()), 7.0);
    }

    void timingChartKeepsTimingsAndSwitchesScale() {
        TimingChart chart;
        const QVector<QPair<QString, double>> timings = {{QStringLiteral("cuSPARSE"), 0.125},
                                                         {QStringLiteral("Spyglass"), 0.0625},
                                                         {QStringLiteral("CPU"), 42.0}};
        chart.setTitle(QStringLiteral("SpMV"));
        chart.setTimings(timings, QStringLiteral("ms"));
        QCOMPARE(chart.valueAxisLabel(), QStringLiteral("time [ms]"));
        // The value axis asks for fewer ticks in a narrow chart, so that its labels do not overlap.
        chart.resize(1200, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const int wide = chart.valueTickCount();
        chart.resize(300, 300);
        QTRY_VERIFY(chart.valueTickCount() < wide);
        QVERIFY(chart.valueTickCount() >= 2);
        chart.setQuantity(QStringLiteral("bytes"));
        chart.setTimings(timings, QStringLiteral("MB"));
        QCOMPARE(chart.valueAxisLabel(), QStringLiteral("bytes [MB]"));
        chart.setQuantity({});
        chart.setTimings(timings, QStringLiteral("ms"));
        chart.setLogScale(true);
        QVERIFY(chart.logScale());
        QCOMPARE(chart.timings(), timings);
        chart.resize(400, 300);
        QVERIFY(!chart.grab().isNull());
        chart.setTimings({}, QStringLiteral("ms"));  // empty must not crash on either scale
        chart.setLogScale(false);
        QVERIFY(chart.timings().isEmpty());
    }

    void lineChartDrawsPositiveValuesOnALogAxisAndCountsTheRest() {
        LineChart chart;
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const QVector<LineSeries> series = {
            {QStringLiteral("cpu"), {1, 2, 3, 4, 5}, {3.0, 1e-3, 1e-9, 0.0, nan}, true},
            {QStringLiteral("cuda (last sweep only)"), {4}, {2e-7}, false}};
        chart.setLogY(true);
        chart.setIntegerX(true);
        chart.setReferenceLine(1e-6, QStringLiteral("tolerance"));
        chart.setSeries(series);
        QCOMPARE(chart.drawnPoints(), 4);
        QCOMPARE(chart.skipped(), 2);  // the zero and the NaN
        QCOMPARE(chart.series().size(), 2);
        QCOMPARE(chart.series()[0].y.size(), 5);  // kept as given
        chart.setLogY(false);
        QCOMPARE(chart.drawnPoints(), 5);  // the zero is drawable on a linear axis
        QCOMPARE(chart.skipped(), 1);
        chart.resize(400, 300);
        QVERIFY(!chart.grab().isNull());
        chart.clear();  // empty on either scale must not crash
        QCOMPARE(chart.drawnPoints(), 0);
        chart.setLogY(true);
        chart.setSeries({{QStringLiteral("x"), {1}, {0.0}, true}});
        QCOMPARE(chart.drawnPoints(), 0);
        QVERIFY(!chart.grab().isNull());
    }
};

QTEST_MAIN(TestCharts)
#include "tst_gui_charts.moc"
