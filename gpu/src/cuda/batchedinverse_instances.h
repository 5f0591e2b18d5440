#pragma once
// The register kernels of method E are instantiated per order (1..8) and per requested block size,
// so that every register index and every shared-memory shape is a compile-time constant; these turn
// the run-time choices into those template arguments.
#include <type_traits>

namespace spyglass::cuda::inverse {

template <int N> using Order = std::integral_constant<int, N>;
template <int B> using RequestedBlock = std::integral_constant<int, B>;

// f(Order<n>{}) for n in 1..7, f(Order<8>{}) for any other n: callers check the range first.
template <typename F> void withOrder(int n, F&& f) {
    switch (n) {
    case 1: f(Order<1>{}); break;
    case 2: f(Order<2>{}); break;
    case 3: f(Order<3>{}); break;
    case 4: f(Order<4>{}); break;
    case 5: f(Order<5>{}); break;
    case 6: f(Order<6>{}); break;
    case 7: f(Order<7>{}); break;
    default: f(Order<8>{}); break;
    }
}

// Smaller blocks let the load, compute and store phases of more independent blocks overlap on one
// multiprocessor; the benchmark compares 32, 64 and the kernel's default (RequestedBlock<0>).
template <typename F> void withRequestedBlock(int matricesPerBlock, F&& f) {
    if (matricesPerBlock == 32) f(RequestedBlock<32>{});
    else if (matricesPerBlock == 64) f(RequestedBlock<64>{});
    else f(RequestedBlock<0>{});
}

// launch(Order<n>{}, RequestedBlock<b>{}) for the run-time order and block size.
template <typename Launch> void launchInstance(int n, int matricesPerBlock, Launch&& launch) {
    withOrder(n, [&](auto order) { withRequestedBlock(matricesPerBlock, [&](auto requested) { launch(order, requested); }); });
}

} // namespace spyglass::cuda::inverse
