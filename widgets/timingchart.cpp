#include "timingchart.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QFontMetrics>
#include <QResizeEvent>

#include <algorithm>
#include <cmath>

namespace spyglass::widgets {

TimingChart::TimingChart(QWidget* parent) : ChartWidget(parent), m_log(new QCheckBox(tr("Logarithmic time axis"), this)) {
    chartLayout()->addWidget(m_log);
    connect(m_log, &QCheckBox::toggled, this, &TimingChart::replot);
    replot();
}

void TimingChart::setTimings(const QVector<QPair<QString, double>>& timings, const QString& unit) {
    m_timings = timings;
    m_unit = unit;
    replot();
}

void TimingChart::setLogScale(bool on) { m_log->setChecked(on); }
bool TimingChart::logScale() const { return m_log->isChecked(); }

void TimingChart::replot() {
    clearPlot();
    QCPAxis* names = m_plot->yAxis;  // key axis: one tick per bar
    QCPAxis* times = m_plot->xAxis;  // value axis
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    auto* bars = new QCPBars(names, times);
    bars->setPen(QPen(QColor(8, 48, 107)));
    bars->setBrush(QColor(66, 146, 198));
    bars->setWidth(0.6);

    const int n = m_timings.size();
    setBarCount(n);
    double maxTime = 0, minPositive = 0;
    for (int i = 0; i < n; ++i) {
        const double key = n - i;  // first entry on top
        const double t = m_timings[i].second;
        ticker->addTick(key, m_timings[i].first);
        if (std::isfinite(t) && t > 0) {
            bars->addData(key, t);
            maxTime = std::max(maxTime, t);
            minPositive = minPositive == 0 ? t : std::min(minPositive, t);
        }
    }
    names->setTicker(ticker);
    names->setRange(0.4, n + 0.6);
    names->grid()->setVisible(false);
    times->setLabel(valueAxisLabel());

    const bool log = m_log->isChecked() && minPositive > 0;
    if (log) {
        // Bars on a log axis need a positive base; one decade below the shortest keeps it visible.
        const double base = std::pow(10.0, std::floor(std::log10(minPositive)) - 1);
        times->setScaleType(QCPAxis::stLogarithmic);
        times->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        times->setNumberFormat(QStringLiteral("gb"));
        bars->setBaseValue(base);
        times->setRange(base, maxTime * 3);
    } else {
        times->setScaleType(QCPAxis::stLinear);
        times->setNumberFormat(QStringLiteral("g"));
        bars->setBaseValue(0);
        fitLinearValueAxis(maxTime);
    }
    for (int i = 0; i < n; ++i) {
        const double t = m_timings[i].second;
        if (!(std::isfinite(t) && t > 0)) continue;
        auto* text = new QCPItemText(m_plot);
        text->setClipToAxisRect(false);
        text->position->setAxes(times, names);
        text->position->setCoords(t, n - i);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        text->setPadding(QMargins(4, 0, 0, 0));
        text->setText(QString::number(t, 'g', 4));
    }
    m_plot->replot();
    // The replot laid the bar names out; with the axis's real width the ticks and the room for the
    // labels may differ from what the previous layout suggested: fit them again.
    if (!log && fitLinearValueAxis(maxTime)) m_plot->replot();
}

bool TimingChart::fitLinearValueAxis(double maxTime) {
    QCPAxis* times = m_plot->xAxis;
    const int ticks = valueTickCount();
    // Room right of the longest bar for its value's label: at least a quarter more, more where the
    // axis is so narrow that the label would be clipped at the edge.
    const QFontMetrics metrics(m_plot->font());
    int labelPixels = 0;
    for (const auto& timing : m_timings)
        labelPixels = std::max(labelPixels, metrics.horizontalAdvance(QString::number(timing.second, 'g', 4)) + 8);
    const int axisPixels = valueAxisPixels();
    const double room = axisPixels > 2 * labelPixels ? double(axisPixels) / double(axisPixels - labelPixels) : 2.0;
    const double upper = maxTime > 0 ? maxTime * std::max(1.25, room) : 1;
    if (ticks == m_valueTicks && upper == times->range().upper) return false;
    m_valueTicks = ticks;
    auto ticker = QSharedPointer<QCPAxisTicker>::create();
    ticker->setTickCount(ticks);
    times->setTicker(ticker);
    times->setRange(0, upper);
    return true;
}

int TimingChart::valueAxisPixels() const {
    // The plot's width less the axis rect's margins (the bar names on the left) as the last replot laid
    // them out: the plot is resized before this widget hears of it, its axis rect only when it draws.
    const QMargins margins = m_plot->axisRect()->margins();
    return std::max(0, m_plot->width() - margins.left() - margins.right());
}

int TimingChart::valueTickCount() const { return std::clamp(valueAxisPixels() / 80, 2, 6); }

void TimingChart::resizeEvent(QResizeEvent* event) {
    ChartWidget::resizeEvent(event);
    if (event->size().width() != event->oldSize().width()) replot();  // ticks and label room follow the width
}

void TimingChart::setQuantity(const QString& quantity) {
    m_quantity = quantity;
    m_log->setText(tr("Logarithmic %1 axis").arg(quantity.isEmpty() ? tr("time") : quantity));
    replot();
}

QString TimingChart::valueAxisLabel() const {
    return QStringLiteral("%1 [%2]").arg(m_quantity.isEmpty() ? tr("time") : m_quantity, m_unit);
}

} // namespace spyglass::widgets
