#include "chartwidget.h"

#include <qcustomplot.h>

#include <QVBoxLayout>

namespace spyglass::widgets {

ChartWidget::ChartWidget(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)), m_layout(new QVBoxLayout(this)) {
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->addWidget(m_plot, 1);
    m_plot->setMinimumHeight(160);
}

void ChartWidget::clearPlot() {
    m_plot->clearPlottables();
    m_plot->clearItems();
    if (m_plot->plotLayout()->rowCount() > 1) m_plot->plotLayout()->removeAt(0), m_plot->plotLayout()->simplify();
    if (!m_title.isEmpty()) {
        m_plot->plotLayout()->insertRow(0);
        m_plot->plotLayout()->addElement(0, 0, new QCPTextElement(m_plot, m_title, QFont(font().family(), -1, QFont::Bold)));
    }
}

} // namespace spyglass::widgets
