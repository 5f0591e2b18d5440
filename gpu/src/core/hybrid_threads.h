#pragma once
// Method D's host work on several threads: detection (thumbnail, refinement) and both encodings.
// Every parallel step writes to places fixed before it starts (its own thumbnail lines, its own
// component's slot, output ranges from prefix sums), so the result is the same bit for bit whatever
// the thread count and whichever thread takes which piece. Threads are started per call: the pieces
// are milliseconds, a start is microseconds.
#include "core/parallel_ranges.h"
#include "spyglass/error.h"
#include "spyglass/matrix.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace spyglass::hybrid_detail {

// The threads a `threads` option asks for: 0 (or less) is every core of the machine.
inline std::size_t threadCount(int requested) {
    if (requested > 0) return static_cast<std::size_t>(requested);
    return std::max(1u, std::thread::hardware_concurrency());
}

// Runs work(t) for t in [0, threads), work(0) on the calling thread. When several throw, the
// exception of the lowest t is rethrown (a cancel beats nothing, a real error beats a cancel only
// by order, which callers do not rely on).
using parallel::onThreads;

// fn(item) for every item of [0, n), items handed out in order, one at a time, to `threads` threads
// (uneven items: components, regions, row chunks). done(finished) runs on the calling thread only,
// after each item it finished (progress reports that must not cross threads). When items throw, no
// further item is started and the exception of the lowest item is rethrown: every item before it
// was taken and has finished, so it is the error a one-thread loop would have met first.
template <typename Fn, typename Done>
void forEachItem(std::size_t n, std::size_t threads, const Fn& fn, const Done& done) {
    threads = std::max<std::size_t>(1, std::min(threads, n));
    if (threads == 1) {
        for (std::size_t item = 0; item < n; ++item) {
            fn(item);
            done(item + 1);
        }
        return;
    }
    std::atomic<std::size_t> next{0}, finished{0};
    std::atomic<bool> stop{false};
    std::vector<std::exception_ptr> errors(n);
    onThreads(threads, [&](std::size_t t) {
        for (;;) {
            if (stop.load(std::memory_order_relaxed)) return;
            const std::size_t item = next.fetch_add(1, std::memory_order_relaxed);
            if (item >= n) return;
            try {
                fn(item);
            } catch (...) {
                errors[item] = std::current_exception();
                stop.store(true, std::memory_order_relaxed);
                return;
            }
            const std::size_t count = finished.fetch_add(1, std::memory_order_relaxed) + 1;
            if (t == 0) done(count);
        }
    });
    for (const std::exception_ptr& error : errors)
        if (error) std::rethrow_exception(error);
}

template <typename Fn>
void forEachItem(std::size_t n, std::size_t threads, const Fn& fn) {
    forEachItem(n, threads, fn, [](std::size_t) {});
}

// Row chunks for a pass over a CSR matrix: about `perThread` chunks a thread, each with about the
// same number of entries plus rows (rowPtr is the entry prefix), so that a dynamic hand-out evens out
// rows of different cost. One chunk when a single thread runs.
inline std::vector<std::size_t> rowChunks(const std::vector<Count>& rowPtr, std::size_t rows, std::size_t threads,
                                          std::size_t perThread = 16) {
    if (rows == 0) return {0, 0};
    if (threads <= 1) return {0, rows};
    struct EntriesAndRows {
        const Count* rowPtr;
        Count operator[](std::size_t i) const { return rowPtr[i] + static_cast<Count>(i); }
    };
    const std::size_t parts = std::max<std::size_t>(1, std::min(rows, threads * perThread));
    return parallel::balancedBounds(EntriesAndRows{rowPtr.data()}, rows, parts);
}

inline void pollCancel(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw CancelledError();
}

} // namespace spyglass::hybrid_detail
