#include "timingoptionsbox.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>

namespace spyglass::widgets {

TimingOptionsBox::TimingOptionsBox(QWidget* parent) : QWidget(parent), m_warmup(new QSpinBox), m_repeats(new QSpinBox) {
    const TimingOptions defaults;
    m_warmup->setObjectName(QStringLiteral("warmup"));
    m_warmup->setRange(0, 1000);
    m_warmup->setValue(defaults.warmup);
    m_warmup->setToolTip(tr("Untimed runs after the cold first one (which is timed and shown apart)"));
    m_repeats->setObjectName(QStringLiteral("repeats"));
    m_repeats->setRange(1, 1000);
    m_repeats->setValue(defaults.repeats);
    m_repeats->setToolTip(tr("Timed runs: the median, min and max are shown"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("warm-up")));
    layout->addWidget(m_warmup);
    layout->addWidget(new QLabel(tr("timed")));
    layout->addWidget(m_repeats);
    layout->addStretch(1);
}

TimingOptions TimingOptionsBox::options() const { return {m_warmup->value(), m_repeats->value()}; }

void TimingOptionsBox::setOptions(const TimingOptions& options) {
    m_warmup->setValue(options.warmup);
    m_repeats->setValue(options.repeats);
}

} // namespace spyglass::widgets
