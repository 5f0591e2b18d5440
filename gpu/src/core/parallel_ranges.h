#pragma once
// Runs a loop over [0, n) as contiguous ranges on threads, for decoders whose items are independent.
// Errors keep their serial meaning: when several ranges throw, the exception of the earliest range is
// the one rethrown, so "the first bad entry" is the same entry a one-thread loop would name.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace spyglass::parallel {

// The threads a parallel loop may use: every hardware thread, unless a ThreadCount in scope on this
// thread (or on the thread that started this one through onThreads) says otherwise.
inline std::size_t& threadCountOverride() {
    thread_local std::size_t count = 0;  // 0: every hardware thread
    return count;
}

inline std::size_t threadCount() {
    const std::size_t set = threadCountOverride();
    return set > 0 ? set : std::max(1u, std::thread::hardware_concurrency());
}

// Sets threadCount() for its scope (0 keeps the hardware's): a reader's `threads` option (the CLI's
// --threads) reaches the loops without a parameter through every decoder, and the tests run the same
// decode on 1, 2, 3 ... threads to show that the result does not depend on the split.
class ThreadCount {
public:
    explicit ThreadCount(std::size_t threads) : m_previous(threadCountOverride()) {
        if (threads > 0) threadCountOverride() = threads;
    }
    ~ThreadCount() { threadCountOverride() = m_previous; }
    ThreadCount(const ThreadCount&) = delete;
    ThreadCount& operator=(const ThreadCount&) = delete;

private:
    std::size_t m_previous;
};

// Threads worth starting for `work` units when each thread should have at least `minWork`.
inline std::size_t threadsFor(std::size_t work, std::size_t minWork) {
    return std::max<std::size_t>(1, std::min(threadCount(), work / std::max<std::size_t>(minWork, 1)));
}

// Range boundaries 0 = b[0] <= ... <= b[parts] = n over items whose cumulative work is prefix[0..n]
// (prefix non-decreasing): each range gets about the same work, not the same item count.
template <typename Prefix>
std::vector<std::size_t> balancedBounds(const Prefix& prefix, std::size_t n, std::size_t parts) {
    std::vector<std::size_t> bounds(parts + 1, n);
    bounds[0] = 0;
    const double total = static_cast<double>(prefix[n] - prefix[0]);
    for (std::size_t p = 1; p < parts; ++p) {
        const auto target = prefix[0] + static_cast<decltype(prefix[0] + 0)>(total * static_cast<double>(p) / static_cast<double>(parts));
        std::size_t lo = bounds[p - 1], hi = n;
        while (lo < hi) {  // first item whose prefix reaches the target
            const std::size_t mid = lo + (hi - lo) / 2;
            if (prefix[mid] < target) lo = mid + 1;
            else hi = mid;
        }
        bounds[p] = lo;
    }
    return bounds;
}

// Runs work(t) for t in [0, threads), work(0) on the calling thread (and, when no more threads can be
// started, the rest too). When several throw, the exception of the lowest t is rethrown.
template <typename Work>
void onThreads(std::size_t threads, const Work& work) {
    if (threads <= 1) {
        work(std::size_t(0));
        return;
    }
    std::vector<std::exception_ptr> errors(threads);
    const std::size_t inherited = threadCountOverride();  // nested loops on the workers keep the caller's count
    auto guarded = [&](std::size_t t) {
        try {
            const ThreadCount count(inherited);
            work(t);
        } catch (...) {
            errors[t] = std::current_exception();
        }
    };
    std::vector<std::thread> workers;
    workers.reserve(threads - 1);
    std::size_t started = 1;
    try {
        for (; started < threads; ++started) workers.emplace_back(guarded, started);
    } catch (...) {  // no more threads: the calling thread runs the rest
    }
    guarded(0);
    for (std::size_t t = started; t < threads; ++t) guarded(t);
    for (std::thread& worker : workers) worker.join();
    for (const std::exception_ptr& error : errors)
        if (error) std::rethrow_exception(error);
}

// fn(part, first, last) for each range [bounds[p], bounds[p+1]); part 0 runs on the calling thread.
template <typename Fn>
void forEachRange(const std::vector<std::size_t>& bounds, Fn fn) {
    onThreads(bounds.size() - 1, [&](std::size_t p) { fn(p, bounds[p], bounds[p + 1]); });
}

// Equal item counts per range.
inline std::vector<std::size_t> evenBounds(std::size_t n, std::size_t parts) {
    std::vector<std::size_t> bounds(parts + 1);
    for (std::size_t p = 0; p <= parts; ++p) bounds[p] = n * p / parts;
    return bounds;
}

} // namespace spyglass::parallel
