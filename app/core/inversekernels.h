#pragma once
// The batched-inverse kernels as choices: those a backend offers (the panel's list, --kernel), a kernel
// found by its name, and the vendor's fast paths that --vendor times beside Spyglass's kernel.
#include "spyglass/batchedinverse.h"

#include <QString>

#include <optional>
#include <vector>

namespace spyglass::app {

std::vector<InverseKernel> inverseKernelChoices(InverseBackend backend);
// The CUDA or cuBLAS kernel whose toString() is `name`; nullopt when there is none.
std::optional<InverseKernel> inverseKernelNamed(const QString& name);
// cuBLAS's batched paths (getrf + getri, matinv) that take matrices of order n.
std::vector<InverseKernel> cublasPathsFor(int n);

} // namespace spyglass::app
