#include "histogramchart.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace spyglass::widgets {

HistogramChart::HistogramChart(QWidget* parent) : ChartWidget(parent) { replot(); }

void HistogramChart::setValues(const QVector<double>& values, int bins, const QString& xLabel) {
    m_values = values;
    m_bins = std::max(bins, 1);
    m_xLabel = xLabel;
    replot();
}

void HistogramChart::setLog10(bool on) { change(m_log10, on); }

void HistogramChart::replot() {
    clearPlot();
    QVector<double> x;
    x.reserve(m_values.size());
    m_skipped = 0;
    for (double v : m_values) {
        const bool usable = std::isfinite(v) && (!m_log10 || v > 0);
        if (usable) x.append(m_log10 ? std::log10(v) : v);
        else ++m_skipped;
    }
    m_counts = QVector<double>(m_bins, 0.0);
    double lo = 0, hi = 1;
    if (!x.isEmpty()) {
        lo = *std::min_element(x.begin(), x.end());
        hi = *std::max_element(x.begin(), x.end());
        if (hi <= lo) { lo -= 0.5; hi += 0.5; }  // all values equal: one centred bin
    }
    const double width = (hi - lo) / m_bins;
    for (double v : x) m_counts[std::min(static_cast<int>((v - lo) / width), m_bins - 1)] += 1;

    QVector<double> centres(m_bins);
    for (int b = 0; b < m_bins; ++b) centres[b] = lo + (b + 0.5) * width;
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    bars->setWidth(width);
    bars->setPen(QPen(QColor(8, 48, 107)));
    bars->setBrush(QColor(107, 174, 214));
    bars->setData(centres, m_counts, true);

    QString label = m_xLabel;
    if (m_log10) label = label.isEmpty() ? tr("log10(value)") : tr("log10(%1)").arg(label);
    if (m_skipped > 0) label += tr("   (%1 not shown)").arg(m_skipped);
    m_plot->xAxis->setLabel(label);
    m_plot->yAxis->setLabel(tr("count"));
    m_plot->xAxis->setRange(lo - width / 2, hi + width / 2);
    m_plot->yAxis->setRange(0, std::max(1.0, *std::max_element(m_counts.begin(), m_counts.end()) * 1.1));
    m_plot->replot();
}

} // namespace spyglass::widgets
