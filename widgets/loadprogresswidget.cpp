#include "loadprogresswidget.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>

namespace spyglass::widgets {

LoadProgressWidget::LoadProgressWidget(QWidget* parent)
    : QWidget(parent), m_label(new QLabel(this)), m_bar(new QProgressBar(this)), m_cancel(new QToolButton(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_bar);
    layout->addWidget(m_cancel);
    m_bar->setRange(0, 1000);
    m_bar->setMaximumWidth(180);
    m_bar->setTextVisible(false);
    m_cancel->setText(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("cancelLoad"));
    connect(m_cancel, &QToolButton::clicked, this, &LoadProgressWidget::cancelRequested);
    hide();
}

void LoadProgressWidget::start(const QString& path) {
    m_label->setText(tr("Loading %1").arg(QFileInfo(path).fileName()));
    m_bar->setValue(0);
    show();
}

void LoadProgressWidget::setProgress(double fraction) {
    m_bar->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000));
}

void LoadProgressWidget::stop() { hide(); }

} // namespace spyglass::widgets
