#pragma once
// Named (x, y) series drawn as points joined by lines, optionally on a logarithmic y axis, with an
// optional horizontal reference line (e.g. a tolerance). For spectra and convergence histories.
// Like the other charts, only its .cpp includes qcustomplot.h.
#include "chartwidget.h"

#include <QColor>
#include <QString>
#include <QVector>

#include <optional>

namespace spyglass::widgets {

struct LineSeries {
    QString name;
    QVector<double> x, y;
    bool joined = true;  // false: points only
};

class LineChart : public ChartWidget {
    Q_OBJECT
public:
    explicit LineChart(QWidget* parent = nullptr);

    void setSeries(const QVector<LineSeries>& series);
    QVector<LineSeries> series() const { return m_series; }
    void clear() { setSeries({}); }
    void setAxisLabels(const QString& x, const QString& y);
    // On a log axis only positive finite values are drawn; the rest are counted in skipped().
    void setLogY(bool on);
    bool logY() const { return m_logY; }
    // Integer ticks on x (indices, sweep numbers).
    void setIntegerX(bool on);
    void setReferenceLine(std::optional<double> y, const QString& label = {});
    // Shown in the plot when no series has a drawable point.
    void setEmptyText(const QString& text);
    // Where the legend sits inside the plot (top right by default): the corner the data leave free.
    void setLegendCorner(Qt::Alignment corner);

    // Points drawn and points left out by the last replot, for tests and the axis label.
    int drawnPoints() const { return m_drawn; }
    int skipped() const { return m_skipped; }

private:
    void replot() override;

    QVector<LineSeries> m_series;
    QString m_xLabel, m_yLabel, m_emptyText;
    bool m_logY = false;
    bool m_integerX = false;
    std::optional<double> m_reference;
    QString m_referenceLabel;
    int m_drawn = 0;
    int m_skipped = 0;
};

} // namespace spyglass::widgets
