// Launchers of the lane-entries inverse (batchedinverse_laneentries.cuh): orders 1..8, a group of
// 2, 8 or 32 lanes per matrix.
#include "batchedinverse_laneentries.cuh"
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass::cuda {

namespace {
using namespace inverse;

template <typename D, int P>
void launchPadded(const D* in, D* out, int* info, int n, long long count, cudaStream_t stream) {
    constexpr long long lanes = LaneEntriesShape<P>::kLanes;
    const long long blocks = (count * lanes + kLaneEntriesThreads - 1) / kLaneEntriesThreads;
    laneEntriesKernel<D, P><<<static_cast<unsigned>(blocks), kLaneEntriesThreads, 0, stream>>>(in, out, info, n, count);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}
} // namespace

template <typename T>
void launchLaneEntriesInverse(const T* in, T* out, int* info, int n, std::int64_t count, cudaStream_t stream) {
    if (count <= 0) return;
    if (n < 1 || n > 8) throw InputError("lane-entries inverse: order " + std::to_string(n) + " is outside 1..8");
    using D = typename DeviceScalar<T>::type;
    const D* din = reinterpret_cast<const D*>(in);
    D* dout = reinterpret_cast<D*>(out);
    if (n <= 2) launchPadded<D, 2>(din, dout, info, n, count, stream);
    else if (n <= 4) launchPadded<D, 4>(din, dout, info, n, count, stream);
    else launchPadded<D, 8>(din, dout, info, n, count, stream);
}

template void launchLaneEntriesInverse<float>(const float*, float*, int*, int, std::int64_t, cudaStream_t);
template void launchLaneEntriesInverse<double>(const double*, double*, int*, int, std::int64_t, cudaStream_t);
template void launchLaneEntriesInverse<std::complex<float>>(const std::complex<float>*, std::complex<float>*, int*, int,
                                                            std::int64_t, cudaStream_t);
template void launchLaneEntriesInverse<std::complex<double>>(const std::complex<double>*, std::complex<double>*, int*,
                                                             int, std::int64_t, cudaStream_t);

} // namespace spyglass::cuda
