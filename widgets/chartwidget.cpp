#include "chartwidget.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QVBoxLayout>

namespace spyglass::widgets {

ChartWidget::ChartWidget(QWidget* parent)
    : QWidget(parent), m_plot(new QCustomPlot(this)), m_layout(new QVBoxLayout(this)), m_titleLabel(new QLabel(this)) {
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(2);
    // The title is a wrapping label above the plot, not a text element inside it: a long title
    // then wraps instead of setting the chart's (and the panel's) minimum width.
    m_titleLabel->setObjectName(QStringLiteral("chartTitle"));
    m_titleLabel->setWordWrap(true);
    m_titleLabel->setAlignment(Qt::AlignHCenter);
    QFont bold = m_titleLabel->font();
    bold.setBold(true);
    m_titleLabel->setFont(bold);
    m_titleLabel->hide();
    m_layout->addWidget(m_titleLabel);
    m_layout->addWidget(m_plot, 1);
    m_plot->setMinimumHeight(120);
}

void ChartWidget::clearPlot() {
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_titleLabel->setText(m_title);
    m_titleLabel->setVisible(!m_title.isEmpty());
}

void ChartWidget::setBarCount(int bars) {
    // Space by content: about 22 px a bar plus the axes, so a one-bar chart stays small and a
    // seven-bar one readable (the height a layout may give beyond this is capped by the maximum).
    const int axes = 60;
    const int title = m_titleLabel->isVisible() ? m_titleLabel->sizeHint().height() : 0;
    const int bottom = m_layout->count() > 2 ? 26 : 0;  // a control row below the plot
    const int n = std::max(bars, 1);
    m_plot->setMinimumHeight(axes + 22 * n);
    setMaximumHeight(title + bottom + axes + 48 * n + 40);
}

} // namespace spyglass::widgets
