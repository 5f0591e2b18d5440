#include "linechart.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace spyglass::widgets {

namespace {
// Distinct colours and markers, so that overlapping series (the same spectrum from two backends)
// stay tellable apart.
const QColor kColours[] = {QColor(33, 113, 181), QColor(230, 85, 13), QColor(49, 163, 84), QColor(117, 107, 177),
                           QColor(99, 99, 99)};
const QCPScatterStyle::ScatterShape kShapes[] = {QCPScatterStyle::ssCircle, QCPScatterStyle::ssCross,
                                                 QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
                                                 QCPScatterStyle::ssDiamond};
} // namespace

LineChart::LineChart(QWidget* parent) : ChartWidget(parent) { replot(); }

void LineChart::setSeries(const QVector<LineSeries>& series) { change(m_series, series); }

void LineChart::setAxisLabels(const QString& x, const QString& y) {
    m_xLabel = x;
    m_yLabel = y;
    replot();
}

void LineChart::setLogY(bool on) { change(m_logY, on); }

void LineChart::setIntegerX(bool on) { change(m_integerX, on); }

void LineChart::setReferenceLine(std::optional<double> y, const QString& label) {
    m_reference = y;
    m_referenceLabel = label;
    replot();
}

void LineChart::setEmptyText(const QString& text) { change(m_emptyText, text); }

void LineChart::setLegendCorner(Qt::Alignment corner) {
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, corner);
    replot();
}

void LineChart::replot() {
    clearPlot();
    auto usable = [this](double y) { return std::isfinite(y) && (!m_logY || y > 0); };
    double xLo = std::numeric_limits<double>::infinity(), xHi = -xLo, yLo = xLo, yHi = -xLo;
    m_drawn = m_skipped = 0;
    int drawnSeries = 0;
    for (int s = 0; s < m_series.size(); ++s) {
        const LineSeries& series = m_series[s];
        QVector<double> x, y;
        for (int k = 0; k < std::min(series.x.size(), series.y.size()); ++k) {
            if (!usable(series.y[k]) || !std::isfinite(series.x[k])) {
                ++m_skipped;
                continue;
            }
            x.append(series.x[k]);
            y.append(series.y[k]);
            xLo = std::min(xLo, series.x[k]);
            xHi = std::max(xHi, series.x[k]);
            yLo = std::min(yLo, series.y[k]);
            yHi = std::max(yHi, series.y[k]);
        }
        m_drawn += x.size();
        auto* graph = m_plot->addGraph();
        graph->setName(series.name);
        const QColor colour = kColours[s % std::size(kColours)];
        graph->setPen(QPen(colour, 1.5));
        graph->setLineStyle(series.joined ? QCPGraph::lsLine : QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(kShapes[s % std::size(kShapes)], colour, 7));
        graph->setData(x, y, true);
        if (x.isEmpty()) graph->removeFromLegend();
        else ++drawnSeries;
    }
    if (m_reference && usable(*m_reference)) {
        yLo = std::min(yLo, *m_reference);
        yHi = std::max(yHi, *m_reference);
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(0, *m_reference);
        line->point2->setCoords(1, *m_reference);
        line->setPen(QPen(QColor(150, 150, 150), 1, Qt::DashLine));
        if (!m_referenceLabel.isEmpty()) {
            auto* text = new QCPItemText(m_plot);
            text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
            text->position->setTypeY(QCPItemPosition::ptPlotCoords);
            text->position->setCoords(0.99, *m_reference);
            text->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
            text->setColor(QColor(110, 110, 110));
            text->setText(m_referenceLabel);
        }
    }
    if (m_drawn == 0) {
        auto* text = new QCPItemText(m_plot);
        text->position->setType(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(0.5, 0.5);
        text->setColor(QColor(110, 110, 110));
        text->setText(m_emptyText.isEmpty() ? tr("No data yet") : m_emptyText);
    }

    if (!(xLo <= xHi)) xLo = 0, xHi = 1;
    if (xLo == xHi) xLo -= 1, xHi += 1;
    const double xPad = m_integerX ? 0.5 : 0.02 * (xHi - xLo);
    m_plot->xAxis->setRange(xLo - xPad, xHi + xPad);
    if (m_integerX) {
        auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
        ticker->setTickStep(1.0);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);  // 1, 2, 5, 10 ... as the range grows
        m_plot->xAxis->setTicker(ticker);
    } else {
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    if (m_logY) {
        if (!(yLo <= yHi)) yLo = 0.1, yHi = 10;
        // Whole decades, so that the ticks are readable; a point just above a decade (a final
        // off-norm at the tolerance) gets room below it rather than sitting on the axis.
        double lo = std::pow(10.0, std::floor(std::log10(yLo) - 0.3)), hi = std::pow(10.0, std::ceil(std::log10(yHi)));
        if (hi <= lo) hi = lo * 10;
        m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        m_plot->yAxis->setNumberFormat(QStringLiteral("eb"));
        m_plot->yAxis->setNumberPrecision(0);
        m_plot->yAxis->setRange(lo, hi);
    } else {
        if (!(yLo <= yHi)) yLo = 0, yHi = 1;
        if (yLo == yHi) yLo -= 0.5, yHi += 0.5;
        const double pad = 0.05 * (yHi - yLo);
        m_plot->yAxis->setScaleType(QCPAxis::stLinear);
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        m_plot->yAxis->setNumberFormat(QStringLiteral("g"));
        m_plot->yAxis->setNumberPrecision(6);
        m_plot->yAxis->setRange(yLo - pad, yHi + pad);
    }
    QString yLabel = m_yLabel;
    if (m_skipped > 0) yLabel += m_logY ? tr(" (%1 zero/NaN not shown)").arg(m_skipped) : tr(" (%1 NaN not shown)").arg(m_skipped);
    m_plot->xAxis->setLabel(m_xLabel);
    m_plot->yAxis->setLabel(yLabel);
    m_plot->legend->setVisible(drawnSeries > 0);  // names the backend even for a single series
    m_plot->replot();
}

} // namespace spyglass::widgets
