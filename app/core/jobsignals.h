#pragma once
// The usual delivery of a job's outcome: finished(result) through the signal given, failed(message)
// and cancelled() through the job's signals of those names. For the jobs whose signals have that
// shape; a job with other signals fills JobRunner::Delivery itself.
#include "job.h"

namespace spyglass::app {

template <typename Owner, typename Result>
typename JobRunner<Result>::Delivery jobSignals(Owner* owner, void (Owner::*finished)(const Result&)) {
    return {[owner, finished](const Result& result) { (owner->*finished)(result); },
            [owner](const QString& message) { emit owner->failed(message); }, [owner] { emit owner->cancelled(); }};
}

} // namespace spyglass::app
