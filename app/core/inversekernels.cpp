#include "inversekernels.h"

namespace spyglass::app {

std::vector<InverseKernel> inverseKernelChoices(InverseBackend backend) { return inverseKernelsOf(backend); }

std::optional<InverseKernel> inverseKernelNamed(const QString& name) {
    for (InverseBackend backend : {InverseBackend::Cuda, InverseBackend::Cublas})
        for (InverseKernel kernel : inverseKernelsOf(backend))
            if (name == QLatin1String(toString(kernel))) return kernel;
    return std::nullopt;
}

std::vector<InverseKernel> cublasPathsFor(int n) {
    std::vector<InverseKernel> paths;
    for (InverseKernel kernel : {InverseKernel::CublasGetrfGetri, InverseKernel::CublasMatinv})
        if (inverseKernelSupports(kernel, n)) paths.push_back(kernel);
    return paths;
}

} // namespace spyglass::app
