#pragma once
// Pieces shared by the files of the bit-flag compute service (bitflagjob.cpp: layout, add, subtract,
// multiply; bitflagjob_lu.cpp: LU): stage-wise progress, timing, and turning a backend's failure
// into a row of the result. Internal to app/core.
#include "bitflagjob.h"

#include "spyglass/error.h"

#include <QString>

#include <algorithm>
#include <atomic>
#include <functional>
#include <new>

namespace spyglass::app::bitflagjob_steps {

inline void throwIfCancelled(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load()) throw CancelledError();
}

// Maps the stages of one run onto 0..100 % and forwards only changes, so that a per-row callback
// does not flood the GUI's event queue.
class Reporter {
public:
    explicit Reporter(const BitFlagJobControl& control) : m_control(control) {}
    void stage(const QString& text, double from, double to) {
        m_text = text;
        m_from = from;
        m_to = to;
        fraction(0);
    }
    void fraction(double f) {
        throwIfCancelled(m_control.cancel);
        const int percent = int(m_from + std::clamp(f, 0.0, 1.0) * (m_to - m_from));
        if (!m_control.progress || (percent == m_lastPercent && m_text == m_lastText)) return;
        m_lastPercent = percent;
        m_lastText = m_text;
        m_control.progress(percent, m_text);
    }
    std::function<void(double)> callback() {
        return [this](double f) { fraction(f); };
    }

private:
    const BitFlagJobControl& m_control;
    QString m_text, m_lastText;
    double m_from = 0, m_to = 0;
    int m_lastPercent = -1;
};

// A CPU reference run: one call by the steady clock (the measurement engine without warm-up).
template <typename F>
Measurement cpuTimed(F&& work) {
    return measureRepeated(
        [&] {
            work();
            return -1.0;
        },
        TimingOptions{0, 1}, {}, false);
}

// Runs one backend, turning its failure into a row of the result; cancelling still cancels.
template <typename F>
void attempt(BitFlagOpRun& run, F&& work) {
    try {
        work();
    } catch (const CancelledError&) {
        throw;
    } catch (const std::bad_alloc&) {
        run.error = QStringLiteral("out of memory");
    } catch (const std::exception& e) {
        run.error = QString::fromStdString(e.what());
    }
}

// LU(A) on every requested backend, each checked by its backward error (bitflagjob_lu.cpp).
BitFlagOpResult runLu(const BitFlagOpRequest& request, const Matrix& a, Reporter& report, const std::atomic<bool>* cancel);

} // namespace spyglass::app::bitflagjob_steps
