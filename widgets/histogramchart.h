#pragma once
// Histogram of a set of values (e.g. per-matrix residuals), optionally binned on log10 of the
// values so that residuals spread over many decades are readable.
#include "chartwidget.h"

#include <QString>
#include <QVector>

namespace spyglass::widgets {

class HistogramChart : public ChartWidget {
    Q_OBJECT
public:
    explicit HistogramChart(QWidget* parent = nullptr);

    void setValues(const QVector<double>& values, int bins = 30, const QString& xLabel = {});
    // With log10 on, only positive finite values are binned (the rest are counted as skipped).
    void setLog10(bool on);
    bool log10() const { return m_log10; }

    // Counts of the last binning, for tests and tooltips.
    QVector<double> binCounts() const { return m_counts; }
    int skipped() const { return m_skipped; }

private:
    void replot() override;

    QVector<double> m_values;
    int m_bins = 30;
    QString m_xLabel;
    bool m_log10 = false;
    QVector<double> m_counts;
    int m_skipped = 0;
};

} // namespace spyglass::widgets
