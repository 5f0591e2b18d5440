#pragma once
// The GPU half of svdBatched: defined in cuda/batchedsvd_run.cpp, or by the stub in
// nocuda/batchedsvd_nocuda.cpp that reports the missing backend. Arguments are validated and
// options.tolerance is resolved (> 0).
#include "spyglass/batchedsvd.h"

namespace spyglass::svd_detail {

template <typename T>
SvdRunInfo svdBatchedOnDevice(const T* a, T* u, SvdReal<T>* sigma, T* v, int m, int n, std::int64_t count,
                              const SvdOptions& options);

} // namespace spyglass::svd_detail
