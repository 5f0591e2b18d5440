#pragma once
// A rank's timed iterations from its CUDA events (never a host clock), and the run's times from the
// slowest rank's.
#include "spyglass/measurement.h"
#include "spyglass/multigpu.h"
#include "multigpu_streams.h"

#include <algorithm>
#include <vector>

namespace spyglass::multigpu_detail {

// Iterations enqueued between two looks at the cancel flag: every rank reads it at the same iteration
// (a rank that stopped alone would leave the others waiting in a collective).
constexpr int kRound = 16;

// The events of iteration k: Start and DotsDone on the rank's stream; End after the scaling (and,
// without overlap, after the exchange); ExchangeStart and ExchangeDone around the halo exchange (on
// the exchange stream when it overlaps the next multiply; recorded only when the rank exchanges).
enum class Mark { Start, DotsDone, End, ExchangeStart, ExchangeDone, Count };

class IterationEvents {
public:
    explicit IterationEvents(int iterations) : m_events(static_cast<int>(Mark::Count) * std::max(1, iterations)) {}
    cudaEvent_t operator()(int k, Mark m) const { return m_events[static_cast<int>(Mark::Count) * k + static_cast<int>(m)]; }

private:
    Events m_events;
};

// One rank's medians over its timed iterations.
struct RankTimes {
    double iterationMs = 0, iterationMinMs = 0, iterationMaxMs = 0, computeMs = 0, communicationMs = 0;
    double exchangeMs = 0, hiddenExchangeMs = 0;
    int samples = 0;
};

inline double elapsedMs(cudaEvent_t from, cudaEvent_t to) {
    float ms = 0;
    SPYGLASS_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
    return ms;
}

// An iteration runs from its Start to its End, its exchange included. When the exchange overlaps the
// next iteration's own-column multiply, an iteration is instead the time from its Start to the next
// one's (what the run pays for it), taken within a round only: a round ends by joining the exchange,
// and the host's look at the cancel flag falls between rounds. Compute is Start to DotsDone;
// communication the rest of the iteration; the hidden exchange is what the iteration would have
// taken with the exchange after it, less what it took.
inline RankTimes rankTimes(const IterationEvents& e, bool exchanges, bool overlapped, int warmup, int iterations) {
    std::vector<double> total, compute, communication, exchange, hidden;
    for (int k = warmup; k < iterations; ++k) {
        const bool lastOfRound = k + 1 == iterations || (k + 1) % kRound == 0;
        if (overlapped && lastOfRound) continue;
        const double t = overlapped ? elapsedMs(e(k, Mark::Start), e(k + 1, Mark::Start)) : elapsedMs(e(k, Mark::Start), e(k, Mark::End));
        const double c = elapsedMs(e(k, Mark::Start), e(k, Mark::DotsDone));
        total.push_back(t);
        compute.push_back(c);
        communication.push_back(t - c);
        if (exchanges) {
            const double x = elapsedMs(e(k, Mark::ExchangeStart), e(k, Mark::ExchangeDone));
            exchange.push_back(x);
            const double serial = overlapped ? elapsedMs(e(k, Mark::Start), e(k, Mark::End)) + x : t;
            hidden.push_back(std::max(0.0, serial - t));
        }
    }
    RankTimes times;
    times.samples = static_cast<int>(total.size());
    times.iterationMs = spyglass::medianOf(total);  // the measurement engine's median
    times.iterationMinMs = total.empty() ? 0 : *std::min_element(total.begin(), total.end());
    times.iterationMaxMs = total.empty() ? 0 : *std::max_element(total.begin(), total.end());
    times.computeMs = spyglass::medianOf(compute);
    times.communicationMs = spyglass::medianOf(communication);
    times.exchangeMs = exchange.empty() ? 0 : spyglass::medianOf(exchange);
    times.hiddenExchangeMs = hidden.empty() ? 0 : spyglass::medianOf(hidden);
    return times;
}

// The slowest rank sets the pace (the all-reduce makes every rank wait for it): its times are the run's.
inline void takeSlowest(const std::vector<RankTimes>& ranks, PowerIterationResult& result) {
    for (const RankTimes& t : ranks)
        if (t.iterationMs >= result.iterationMs) {
            result.iterationMs = t.iterationMs;
            result.iterationMinMs = t.iterationMinMs;
            result.iterationMaxMs = t.iterationMaxMs;
            result.computeMs = t.computeMs;
            result.communicationMs = t.communicationMs;
            result.exchangeMs = t.exchangeMs;
            result.hiddenExchangeMs = t.hiddenExchangeMs;
            result.timedIterations = t.samples;
        }
}

} // namespace spyglass::multigpu_detail
