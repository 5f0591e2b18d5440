#pragma once
// Horizontal bar chart of named times (one bar per name, top to bottom in the given order), with
// an optional logarithmic time axis for results that differ by orders of magnitude.
// The only chart widgets include qcustomplot.h, and only in their .cpp.
#include "chartwidget.h"

#include <QPair>
#include <QString>
#include <QVector>

class QCheckBox;

namespace spyglass::widgets {

class TimingChart : public ChartWidget {
    Q_OBJECT
public:
    explicit TimingChart(QWidget* parent = nullptr);

    void setTimings(const QVector<QPair<QString, double>>& timings, const QString& unit = QStringLiteral("ms"));
    QVector<QPair<QString, double>> timings() const { return m_timings; }
    // What the bars measure, for the value axis ("time" by default; "bytes" for a chart of sizes).
    void setQuantity(const QString& quantity);
    // The value axis's label as drawn, e.g. "time [ms]".
    QString valueAxisLabel() const;
    void setLogScale(bool on);
    bool logScale() const;
    void clear() { setTimings({}, m_unit); }
    // Ticks asked of the linear value axis: one per ~80 px of its width, 2 to 6, so that labels such
    // as "0.015" do not run into each other when the chart sits in a narrow column.
    int valueTickCount() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void replot() override;
    int valueAxisPixels() const;
    // Ticks and range of the linear value axis for the current width; true when they changed.
    bool fitLinearValueAxis(double maxTime);

    QCheckBox* m_log;
    QVector<QPair<QString, double>> m_timings;
    QString m_unit = QStringLiteral("ms");
    QString m_quantity;
    int m_valueTicks = 0;  // what the value axis was last given
};

} // namespace spyglass::widgets
