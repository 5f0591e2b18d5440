#include "formatcomparisonjob.h"


#include "spyglass/hybrid_regions.h"
#include "spyglass/error.h"


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

FormatComparisonJob::FormatComparisonJob(QObject* parent)
    : QObject(parent),
      m_runner(this, {[this](const FormatComparison& comparison) { emit finished(comparison); },
                      [this](const QString& message) { emit failed(message); }, [this] { emit cancelled(); }}) {
    qRegisterMetaType<spyglass::FormatComparison>();
}

bool FormatComparisonJob::start(const FormatComparisonRequest& request) {
    auto deliver = queuedTo(this, [this](double fraction, const QString& step) { emit progress(fraction, step); });
    auto report = [deliver](double fraction, const std::string& step) { deliver(fraction, QString::fromStdString(step)); };
    return m_runner.start([request, report](const std::atomic<bool>* cancel) { return runFormatComparison(request, cancel, report); },
                          QStringLiteral("comparing the formats"));
}

void FormatComparisonJob::cancel() { m_runner.cancel(); }

} // namespace spyglass::app
