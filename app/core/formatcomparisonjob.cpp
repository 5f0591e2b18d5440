#include "formatcomparisonjob.h"

#include "errortext.h"

#include "spyglass/hybrid_regions.h"
#include "spyglass/error.h"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <random>

namespace spyglass::app {

namespace {

template <typename T>
std::vector<T> makeX(Index cols, bool random) {
    std::vector<T> x(static_cast<std::size_t>(cols), T(1));
    if (!random) return x;
    std::mt19937 rng(1);  // the CLI's --x random --seed 1: the same x in both
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (T& v : x) v = T(dist(rng));
    return x;
}

} // namespace

FormatComparison runFormatComparison(const FormatComparisonRequest& request, const std::atomic<bool>* cancel,
                                     const std::function<void(double, const std::string&)>& progress) {
    if (!request.matrix) throw InputError("no matrix is open");
    FormatComparisonOptions options;
    options.useGpu = request.useGpu;
    options.repeats = std::max(1, request.repeats);
    options.cpuRepeats = std::min(options.repeats, 5);
    options.cancel = cancel;
    options.progress = progress;
    options.findDenseRegions = [](const BinaryPattern& pattern) { return detectDenseRegions(pattern).regions; };
    const Matrix& m = *request.matrix;
    return request.singlePrecision ? compareSpmvFormats(m, makeX<float>(m.cols, request.randomX), options)
                                   : compareSpmvFormats(m, makeX<double>(m.cols, request.randomX), options);
}

FormatComparisonJob::FormatComparisonJob(QObject* parent) : QObject(parent) {
    qRegisterMetaType<spyglass::FormatComparison>();
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &FormatComparisonJob::deliver);
}

FormatComparisonJob::~FormatComparisonJob() {
    cancel();
    m_watcher.waitForFinished();
}

bool FormatComparisonJob::start(const FormatComparisonRequest& request) {
    if (m_watcher.isRunning()) return false;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    auto cancelFlag = m_cancel;
    // Progress crosses to the GUI thread as a queued signal; the destructor waits for the worker, so
    // `this` outlives every call.
    const auto report = [this](double fraction, const std::string& step) {
        QMetaObject::invokeMethod(this, [this, fraction, text = QString::fromStdString(step)] { emit progress(fraction, text); },
                                  Qt::QueuedConnection);
    };
    m_watcher.setFuture(QtConcurrent::run([request, cancelFlag, report]() {
        Outcome outcome;
        try {
            outcome.comparison = std::make_shared<FormatComparison>(runFormatComparison(request, cancelFlag.get(), report));
        } catch (const CancelledError&) {
            outcome.cancelled = true;
        } catch (const std::bad_alloc&) {
            outcome.error = QStringLiteral("out of memory while comparing the formats");
        } catch (const std::exception& error) {
            outcome.error = errorText(error);
        }
        return outcome;
    }));
    return true;
}

void FormatComparisonJob::cancel() {
    if (m_cancel) m_cancel->store(true);
}

void FormatComparisonJob::deliver() {
    const Outcome outcome = m_watcher.result();
    if (outcome.cancelled) emit cancelled();
    else if (outcome.comparison) emit finished(*outcome.comparison);
    else emit failed(outcome.error);
}

} // namespace spyglass::app
