#pragma once
// The hybrid SpMV job's complex path (hybridspmvjob.h): a c128 valued encoding multiplied on the CPU
// reference and the CUDA hybrid kernel, and as complex CSR by cuSPARSE, each checked against complex
// CSR within each row's rounding bound.
#include "hybridspmvjob.h"

namespace spyglass::app {

HybridSpmvResult runComplexHybridSpmv(const HybridSpmvRequest& request, const std::atomic<bool>* cancel);

} // namespace spyglass::app
