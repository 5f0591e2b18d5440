#pragma once
// The GPU half of invertBatched: defined in cuda/batchedinverse_run.cpp, or by the stub in
// nocuda/batchedinverse_nocuda.cpp that reports the missing backend. Arguments are validated.
#include "spyglass/batchedinverse.h"

namespace spyglass::inverse_detail {

template <typename T>
InverseRunInfo invertBatchedOnDevice(const T* input, T* output, int n, std::int64_t count, const InverseOptions& options);

} // namespace spyglass::inverse_detail
