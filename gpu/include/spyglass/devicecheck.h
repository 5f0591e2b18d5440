#pragma once
// Small device self-checks behind a Qt-free, CUDA-free interface, so that the runtime test suite (and
// a "diagnose" command) can exercise the CUDA internals - RAII buffers, the memory cap, event timing -
// while compiling in builds without CUDA. Without CUDA every function throws BackendUnavailableError.
#include "spyglass/measurement.h"

#include <cstddef>
#include <vector>

namespace spyglass::devicecheck {

// Uploads the values into a DeviceBuffer, copies them device-to-device into a second buffer and
// downloads that: any fault in allocation, copy sizes or offsets shows as a difference.
std::vector<float> roundTripThroughDevice(const std::vector<float>& values);
std::vector<double> roundTripThroughDevice(const std::vector<double>& values);

// A kernel that spins on the device's nanosecond global timer for the given time, timed with
// EventTimer; returns the milliseconds the events measured.
double timeSpinKernelMs(double milliseconds);

// The measurement engine (cuda/measure.h) on a spin kernel whose first launch spins firstMs and every
// later one laterMs: what a first launch that loads its module looks like to it.
Measurement measureSpinWithSlowFirstLaunch(double firstMs, double laterMs, const TimingOptions& timing);

// Milliseconds (EventTimer, median of a few) for one device-to-device copy of `bytes` bytes.
double timeDeviceCopyMs(std::size_t bytes);

// Allocates `bytes` through the capped DeviceBuffer allocator, writes it (cudaMemset) and frees it.
// Throws OutOfMemoryError when the cap or the device refuses.
void allocateAndTouch(std::size_t bytes);

} // namespace spyglass::devicecheck
