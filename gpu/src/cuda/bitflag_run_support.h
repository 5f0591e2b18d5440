#pragma once
// What every method A device entry does first: find the device (or say why there is none) and turn the
// options' CUDA-free stream handle back into the cudaStream_t it stands for.
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/measure.h"

#include "spyglass/backend.h"
#include "spyglass/bitflag.h"
#include "spyglass/error.h"

#include <functional>
#include <string>

namespace spyglass::cuda {

inline void requireDevice(const std::string& what) {
    const DeviceInfo info = cudaDeviceInfo();
    if (!info.present) throw BackendUnavailableError(what + ": " + info.reason);
}

inline cudaStream_t streamOf(const BitFlagRunOptions& options) { return static_cast<cudaStream_t>(options.stream); }

// The device work of one operation: measured by the engine when the caller asked (options.measured),
// else run once. `restore` re-makes an input the work overwrites before every measured call.
template <typename Work>
void runMeasured(const BitFlagRunOptions& options, cudaStream_t stream, Work&& work, const std::function<void()>& restore = {}) {
    if (!options.measured) {
        work();
        return;
    }
    const Measurement before = *options.measured;  // copies timed apart before the work stay
    *options.measured = measureOnStream(stream, work, options.timing, restore);
    options.measured->setupMs = before.setupMs;
    options.measured->uploadMs = before.uploadMs;
    options.measured->downloadMs = before.downloadMs;
}

// Host-to-device or device-to-host steps timed apart into the measurement the caller asked for.
template <typename Step>
void runTimedCopy(const BitFlagRunOptions& options, cudaStream_t stream, double Measurement::*field, Step&& step) {
    const double ms = timeOnStream(stream, step);
    if (options.measured) options.measured->*field = ms;
}

} // namespace spyglass::cuda
