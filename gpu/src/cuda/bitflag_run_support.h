#pragma once
// What every method A device entry does first: find the device (or say why there is none) and turn the
// options' CUDA-free stream handle back into the cudaStream_t it stands for.
#include "spyglass/cuda/cudacheck.h"

#include "spyglass/backend.h"
#include "spyglass/bitflag.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass::cuda {

inline void requireDevice(const std::string& what) {
    const DeviceInfo info = cudaDeviceInfo();
    if (!info.present) throw BackendUnavailableError(what + ": " + info.reason);
}

inline cudaStream_t streamOf(const BitFlagRunOptions& options) { return static_cast<cudaStream_t>(options.stream); }

} // namespace spyglass::cuda
