#include "samplehint.h"

#include "core/samples.h"
#include "maincontext.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace spyglass::widgets {

SampleHint::SampleHint(MainContext& context, const QString& intro, QWidget* parent) : QWidget(parent), m_context(context) {
    setObjectName(QStringLiteral("sampleHint"));
    m_intro = new QLabel(intro);
    m_intro->setWordWrap(true);
    m_reason = new QLabel;
    m_reason->setWordWrap(true);
    m_reason->hide();
    m_button = new QPushButton;
    m_button->setObjectName(QStringLiteral("openSampleButton"));
    m_button->hide();
    auto* buttonRow = new QHBoxLayout;
    buttonRow->addWidget(m_button);
    buttonRow->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_intro);
    layout->addWidget(m_reason);
    layout->addLayout(buttonRow);
    connect(m_button, &QPushButton::clicked, this, [this] {
        const QString path = app::samplePath(m_sampleId);
        if (path.isEmpty()) m_context.showStatusMessage(tr("The sample matrix %1 is not installed").arg(app::sampleMatrix(m_sampleId).fileName));
        else m_context.requestOpen(path);
    });
}

void SampleHint::offer(const QString& sampleId, const QString& reason) {
    const app::SampleMatrix sample = app::sampleMatrix(sampleId);
    if (sample.id.isEmpty()) {
        clearOffer();
        return;
    }
    m_sampleId = sample.id;
    m_reason->setText(reason);
    m_reason->setVisible(!reason.isEmpty());
    m_button->setText(tr("Open sample: %1").arg(sample.title));
    m_button->setToolTip(sample.description);
    m_button->show();
}

void SampleHint::clearOffer() {
    m_sampleId.clear();
    m_reason->clear();
    m_reason->hide();
    m_button->hide();
}

QString SampleHint::text() const {
    QString all = m_intro->text();
    if (!m_sampleId.isEmpty()) all += QLatin1Char('\n') + m_reason->text() + QLatin1Char('\n') + m_button->text();
    return all;
}

} // namespace spyglass::widgets
