// The floor under every reader that returns a coordinate Matrix: allocating and zero-filling its row,
// column and value arrays (int32, int32, double per entry). std::vector's resize fills them on one
// thread; the text reader hides that behind its parsing threads, a container decoder has little to
// hide it behind (bench/results/spy_reopen.md). Two ways, 3 runs each, fresh arrays every run:
//   resize:    reserve with 2 MB-page advice, then resize (what the readers do);
//   populated: the same, with the pages first populated on every thread (MADV_POPULATE_WRITE).
//   bench_coofill [--entries N (default 12 009 600: the 120^3 stencil of spy_reopen.sh)]
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// [first, last) of the array's capacity, rounded inward to `unit`.
template <typename T>
std::pair<std::uintptr_t, std::uintptr_t> capacityRange(const std::vector<T>& a, std::uintptr_t unit) {
    const auto begin = reinterpret_cast<std::uintptr_t>(a.data());
    const std::uintptr_t end = begin + a.capacity() * sizeof(T);
    return {(begin + unit - 1) / unit * unit, end / unit * unit};
}

template <typename T>
void adviseHugePages(const std::vector<T>& a) {
    const auto [first, last] = capacityRange(a, std::uintptr_t(2) << 20);
    if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

// Populates the capacity's pages in `threads` slices at once (the kernel zeroes each page once).
template <typename T>
void populateOnThreads(const std::vector<T>& a, unsigned threads) {
#ifdef MADV_POPULATE_WRITE
    const std::uintptr_t page = 4096;
    const auto [first, last] = capacityRange(a, page);
    if (last <= first) return;
    const std::uintptr_t slice = (last - first) / threads / page * page;
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t) {
        const std::uintptr_t from = first + t * slice, to = t + 1 == threads ? last : from + slice;
        workers.emplace_back([from, to] { ::madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE); });
    }
    for (std::thread& w : workers) w.join();
#else
    (void)a;
    (void)threads;
#endif
}

double fillMilliseconds(std::size_t entries, bool populate, unsigned threads) {
    const Clock::time_point start = Clock::now();
    std::vector<std::int32_t> rows, cols;
    std::vector<double> values;
    rows.reserve(entries);
    cols.reserve(entries);
    values.reserve(entries);
    adviseHugePages(rows);
    adviseHugePages(cols);
    adviseHugePages(values);
    if (populate) {
        populateOnThreads(rows, threads);
        populateOnThreads(cols, threads);
        populateOnThreads(values, threads);
    }
    rows.resize(entries);
    cols.resize(entries);
    values.resize(entries);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    // A read of the arrays, so that the fill cannot be left out.
    if (rows[entries / 2] != 0 || cols[entries - 1] != 0 || values[0] != 0) std::abort();
    return ms;
}

} // namespace

int main(int argc, char** argv) {
    std::size_t entries = 12009600;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--entries") == 0 && i + 1 < argc) {
            entries = std::strtoull(argv[++i], nullptr, 10);
        } else {
            std::fprintf(stderr, "bench_coofill: unknown argument %s (usage: bench_coofill [--entries N])\n", argv[i]);
            return 2;
        }
    }
    if (entries == 0) {
        std::fprintf(stderr, "bench_coofill: --entries must be at least 1\n");
        return 2;
    }
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::printf("COO arrays of %zu entries (%.0f MB), %u hardware threads\n", entries, double(entries) * 16 / 1e6, threads);
    for (const bool populate : {false, true}) {
        std::string times;
        for (int run = 0; run < 3; ++run) times += (run ? ", " : "") + std::to_string(fillMilliseconds(entries, populate, threads)).substr(0, 5);
        std::printf("%-46s %s ms\n", populate ? "pages populated on every thread, then resize" : "resize on one thread", times.c_str());
    }
    return 0;
}
