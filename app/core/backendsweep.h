#pragma once
// One request per backend, run one after the other inside one job (the batched SVD and inverse tabs
// compare the CPU reference, the CUDA kernel and the vendor library on the same batch): the job
// reports "CUDA (2 of 3): phase" as its progress, a backend that fails is noted and the next one runs,
// and a cancel stops the sweep but keeps the runs that finished. The widget only shows the result.
#include "computejob.h"

#include <QString>
#include <QVector>

#include <atomic>
#include <functional>
#include <optional>

namespace spyglass::app {

template <typename Request>
struct BackendSweepRequest {
    QVector<Request> runs;                        // one per backend, in the order they run
    std::function<QString(const Request&)> name;  // the backend in words, for progress and errors
};

template <typename Result>
struct BackendSweepResult {
    struct Run {
        QString name;
        std::optional<Result> result;  // unset: the backend failed
        QString error;                 // why (errorText(), the text the CLI prints)
    };
    QVector<Run> runs;       // the backends that ran, in order
    bool cancelled = false;  // a cancel stopped the sweep after `runs`
};

// runOne: Result(const Request&, const std::atomic<bool>* cancel, const JobProgress& progress).
template <typename Request, typename Result, typename RunOne>
BackendSweepResult<Result> runBackendSweep(const BackendSweepRequest<Request>& sweep, const std::atomic<bool>* cancel,
                                           const JobProgress& progress, RunOne runOne) {
    BackendSweepResult<Result> out;
    const int count = sweep.runs.size();
    for (int i = 0; i < count; ++i) {
        const Request& request = sweep.runs[i];
        const QString name = sweep.name ? sweep.name(request) : QStringLiteral("backend %1").arg(i + 1);
        const JobProgress step = [&](int percent, const QString& phase) {
            if (progress) progress(percent, QStringLiteral("%1 (%2 of %3): %4").arg(name).arg(i + 1).arg(count).arg(phase));
        };
        auto work = [&](const std::atomic<bool>* flag) { return runOne(request, flag, step); };
        // The same exception boundary as a job of its own: a cancel, a message, or the result.
        JobOutcome<Result> outcome = runJobWork<Result>(work, cancel, QStringLiteral("running %1").arg(name));
        if (outcome.cancelled || (cancel && cancel->load())) {
            if (outcome.result) out.runs.push_back({name, *outcome.result, {}});
            out.cancelled = true;
            break;
        }
        if (outcome.result) out.runs.push_back({name, *outcome.result, {}});
        else out.runs.push_back({name, std::nullopt, outcome.error});
    }
    return out;
}

// What a sweep job hands its ComputeJob constructor: the run function (runBackendSweep over runOne) and
// the "doing" text, that of the first run (`nothing` when the sweep has none).
template <typename Request, typename Result, typename RunOne>
auto sweepRun(RunOne runOne) {
    return [runOne](const BackendSweepRequest<Request>& sweep, const std::atomic<bool>* cancel, const JobProgress& progress) {
        return runBackendSweep<Request, Result>(sweep, cancel, progress, runOne);
    };
}
template <typename Request, typename Doing>
auto sweepDoing(Doing doing, const QString& nothing) {
    return [doing, nothing](const BackendSweepRequest<Request>& sweep) {
        return sweep.runs.isEmpty() ? nothing : doing(sweep.runs.front());
    };
}

} // namespace spyglass::app
