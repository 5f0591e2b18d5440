#pragma once
// The hybrid SpMV job's complex path (hybridspmvjob.h): a c128 valued encoding multiplied on the CPU
// reference and the CUDA hybrid kernel, and as complex CSR by cuSPARSE, each checked against complex
// CSR within each row's rounding bound; and what every path's result says before its first backend runs.
#include "hybridspmvjob.h"

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

} // namespace spyglass::app
