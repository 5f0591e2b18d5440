#pragma once
// The hybrid SpMV job's complex path (hybridspmvjob.h): a c128 valued encoding multiplied on the CPU
// reference and the CUDA hybrid kernel, and as complex CSR by cuSPARSE, each checked against complex
// CSR within each row's rounding bound; and what every path's result says before its first backend runs.
#include "errortext.h"
#include "hybridspmvjob.h"

#include "spyglass/error.h"

#include <atomic>
#include <exception>

namespace spyglass::app {

HybridSpmvResult runComplexHybridSpmv(const HybridSpmvRequest& request, const std::atomic<bool>* cancel);

// A result with no runs yet: the shape and nonzeros of `encoded` (the binary pattern or the valued
// encoding multiplied), the bytes of its forms, and the request's warm-up and repeats.
template <typename Encoded>
HybridSpmvResult resultBeforeRuns(const Encoded& encoded, const HybridBytes& bytes, const HybridSpmvRequest& request) {
    HybridSpmvResult result;
    result.rows = encoded.rows;
    result.cols = encoded.cols;
    result.nnz = encoded.nnz();
    result.warmup = request.warmup;
    result.repeats = request.repeats;
    result.bytes = bytes;
    return result;
}

// One backend's run appended to `result`: measure(run) names, times and checks it. A failure of that
// backend alone (no GPU, out of memory) becomes the run's error and leaves the others to run; a cancel
// (before it starts, or from inside) ends the whole job.
template <typename Measure>
void appendRun(HybridSpmvResult& result, HybridSpmvKernel backend, const std::atomic<bool>* cancel, const Measure& measure) {
    if (cancel && cancel->load()) throw CancelledError();
    HybridSpmvRun run;
    run.backend = backend;
    try {
        measure(run);
    } catch (const CancelledError&) {
        throw;
    } catch (const std::exception& error) {
        run.error = errorText(error);
    }
    result.runs.push_back(std::move(run));
}

} // namespace spyglass::app
