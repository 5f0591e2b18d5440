// invertBatched: validates the request, then runs the CPU reference or hands over to the device.
#include "core/batchedinverse_device.h"
#include "core/instantiate.h"
#include "spyglass/batchedinverse.h"
#include "spyglass/error.h"
#include "spyglass/measurement.h"

#include <complex>
#include <string>

namespace spyglass {

std::vector<InverseKernel> inverseKernelsOf(InverseBackend backend) {
    switch (backend) {
    case InverseBackend::Reference: return {InverseKernel::Auto};
    case InverseBackend::Cuda:
        return {InverseKernel::Auto, InverseKernel::SeedSharedMemory, InverseKernel::ThreadPerMatrix,
                InverseKernel::ThreadPerMatrixPipelined, InverseKernel::ThreadPerMatrixStaged, InverseKernel::ThreadPerMatrixTma,
                InverseKernel::LaneGroupRows,
                InverseKernel::LaneEntries};
    case InverseBackend::Cublas: return {InverseKernel::CublasGetrfGetri, InverseKernel::CublasMatinv};
    }
    return {};
}

bool inverseKernelSupports(InverseKernel kernel, int n) {
    if (n < 1) return false;
    switch (kernel) {
    case InverseKernel::ThreadPerMatrix:
    case InverseKernel::ThreadPerMatrixPipelined:
    case InverseKernel::ThreadPerMatrixStaged:
    case InverseKernel::ThreadPerMatrixTma:
    case InverseKernel::LaneEntries: return n <= 8;
    case InverseKernel::Auto:
    case InverseKernel::SeedSharedMemory:
    case InverseKernel::LaneGroupRows:
    case InverseKernel::CublasGetrfGetri:
    case InverseKernel::CublasMatinv: return n <= kMaxGpuInverseOrder;
    }
    return false;
}

template <typename T>
InverseRunInfo invertBatched(const T* input, T* output, int n, std::int64_t count, const InverseOptions& options) {
    if (n < 1) throw InputError("batched inverse: the order n must be at least 1 (got " + std::to_string(n) + ")");
    if (count < 0) throw InputError("batched inverse: negative batch size " + std::to_string(count));
    if (count > 0 && (!input || !output)) throw InputError("batched inverse: null input or output buffer");
    if (count > 0 && input != output) {
        const std::size_t bytes = static_cast<std::size_t>(count) * n * n * sizeof(T);
        const char* in = reinterpret_cast<const char*>(input);
        const char* out = reinterpret_cast<const char*>(output);
        if (in < out + bytes && out < in + bytes) throw InputError("batched inverse: input and output overlap");
    }
    if (!options.devices.empty() && options.backend != InverseBackend::Cuda)
        throw InputError(std::string("batched inverse: several GPUs (devices) run the cuda backend, not ") + toString(options.backend));
    if (options.streamChunk < 0) throw InputError("batched inverse: streamChunk must not be negative");
    requireValidTiming("batched inverse", options.timing);
    if (options.backend == InverseBackend::Reference) {
        InverseRunInfo run;
        run.info.assign(static_cast<std::size_t>(count), 0);
        run.device = "CPU reference";
        // One run by the steady clock (the engine without warm-up; the CPU has no module to load).
        run.timing = measureRepeated(
            [&] {
                invertBatchedReference(input, output, run.info.data(), n, count, options.cancel);
                return -1.0;
            },
            TimingOptions{0, 1}, {}, false);
        run.computeMs = run.totalMs = run.timing.medianMs;
        return run;
    }
    if (n > kMaxGpuInverseOrder)
        throw InputError("batched inverse: the GPU backends take orders up to " + std::to_string(kMaxGpuInverseOrder) +
                         " (got " + std::to_string(n) + "); use the CPU reference");
    InverseKernel kernel = options.kernel;
    const bool vendorKernel = kernel == InverseKernel::CublasGetrfGetri || kernel == InverseKernel::CublasMatinv;
    if (options.backend == InverseBackend::Cublas && kernel == InverseKernel::Auto) kernel = InverseKernel::CublasGetrfGetri;
    else if (options.backend == InverseBackend::Cublas && !vendorKernel)
        throw InputError(std::string("batched inverse: kernel ") + toString(kernel) + " is not a cuBLAS routine");
    else if (options.backend == InverseBackend::Cuda && vendorKernel)
        throw InputError(std::string("batched inverse: kernel ") + toString(kernel) + " belongs to the cuBLAS backend");
    if (!inverseKernelSupports(kernel, n))
        throw InputError(std::string("batched inverse: kernel ") + toString(kernel) + " does not support order " +
                         std::to_string(n));
    if (options.matricesPerBlock < 0 || options.matricesPerBlock > 1024)
        throw InputError("batched inverse: matrices per block must be 0 (automatic) or 1..1024");
    InverseOptions resolved = options;
    resolved.kernel = kernel;
    return inverse_detail::invertBatchedOnDevice(input, output, n, count, resolved);
}

#define SPYGLASS_INSTANTIATE_INVERT(T) \
    template InverseRunInfo invertBatched<T>(const T*, T*, int, std::int64_t, const InverseOptions&);
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_INVERT)

} // namespace spyglass
