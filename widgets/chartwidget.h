#pragma once
// What the chart widgets (line, timing, histogram) share: a QCustomPlot filling the widget, a bold
// title row above the axes, and the rule that a chart draws everything from its state, so that each
// setter only changes the state and draws again (change()). Only the .cpp files include qcustomplot.h.
#include <QString>
#include <QWidget>

#include <utility>

class QCustomPlot;
class QLabel;
class QVBoxLayout;

namespace spyglass::widgets {

class ChartWidget : public QWidget {
    Q_OBJECT
public:
    void setTitle(const QString& title) { change(m_title, title); }

protected:
    explicit ChartWidget(QWidget* parent);

    // Draws the whole chart from its state; a derived constructor calls it once it is built.
    virtual void replot() = 0;

    template <typename T, typename U>
    void change(T& member, U&& value) {
        member = std::forward<U>(value);
        replot();
    }

    // The start of every replot: removes the plottables and items and puts the title row back.
    void clearPlot();

    // Sizes a bar chart by its bar count (minimum and maximum height).
    void setBarCount(int bars);

    // The layout the plot fills; a chart may add controls below it.
    QVBoxLayout* chartLayout() const { return m_layout; }

    QCustomPlot* const m_plot;

private:
    QVBoxLayout* m_layout;
    QLabel* m_titleLabel;
    QString m_title;
};

} // namespace spyglass::widgets
