#pragma once
// "Warm-up" and "Timed runs" for a tab that measures: the same two numbers as the CLI's --warmup and
// --repeats and the benchmarks' defaults (3 and 20).
#include "core/timingtext.h"

#include <QWidget>

class QSpinBox;

namespace spyglass::widgets {

class TimingOptionsBox : public QWidget {
    Q_OBJECT
public:
    explicit TimingOptionsBox(QWidget* parent = nullptr);
    TimingOptions options() const;
    void setOptions(const TimingOptions& options);

private:
    QSpinBox* m_warmup;
    QSpinBox* m_repeats;
};

} // namespace spyglass::widgets
