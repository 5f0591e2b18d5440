// Without CUDA there is no device to check: every self-check reports the missing backend.
#include "spyglass/devicecheck.h"

#include "spyglass/error.h"

namespace spyglass::devicecheck {

namespace {
[[noreturn]] void unavailable() { throw BackendUnavailableError("device self-check: built without CUDA"); }
} // namespace

std::vector<float> roundTripThroughDevice(const std::vector<float>&) { unavailable(); }
std::vector<double> roundTripThroughDevice(const std::vector<double>&) { unavailable(); }
double timeSpinKernelMs(double) { unavailable(); }
Measurement measureSpinWithSlowFirstLaunch(double, double, const TimingOptions&) { unavailable(); }
double timeDeviceCopyMs(std::size_t) { unavailable(); }
void allocateAndTouch(std::size_t) { unavailable(); }

} // namespace spyglass::devicecheck
