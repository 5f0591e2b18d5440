// Times renderDensity (the spy picture) and computeStats on a synthetic 100 M-entry matrix: a band
// plus uniform scatter, the access pattern of a real large sparse matrix. CPU only; steady_clock,
// median of 5 after one warm-up. Checked: the whole-matrix picture counts every entry once (a
// symmetric one its mirrors too) and the statistics count every stored entry; exit 1 otherwise.
//   bench_density [ENTRIES] [IMAGE_SIZE]
#include "spyglass/benchmark.h"
#include "spyglass/densityimage.h"
#include "spyglass/stats.h"

#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

// rowSorted: rows ascending as in most files (cache-friendly); otherwise every entry is random.
spyglass::Matrix syntheticMatrix(std::int64_t entries, spyglass::Index size, bool rowSorted) {
    spyglass::Matrix m;
    m.rows = m.cols = size;
    m.field = spyglass::Field::Pattern;
    m.rowIndex.resize(static_cast<std::size_t>(entries));
    m.colIndex.resize(static_cast<std::size_t>(entries));
    std::uint64_t state = 0x9E3779B97F4A7C15ull;  // fixed seed: xorshift64*, fast enough for 10^8 draws
    auto next = [&state] {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return state * 0x2545F4914F6CDD1Dull;
    };
    for (std::int64_t k = 0; k < entries; ++k) {
        const std::uint64_t r = next();
        const spyglass::Index i = rowSorted ? static_cast<spyglass::Index>(k * size / entries)
                                            : static_cast<spyglass::Index>((r >> 32) % std::uint64_t(size));
        spyglass::Index j;
        if ((r & 3) != 0) {  // three quarters in a band of half-width 64
            const std::int64_t offset = std::int64_t((r >> 8) & 127) - 64;
            j = static_cast<spyglass::Index>(std::min<std::int64_t>(size - 1, std::max<std::int64_t>(0, i + offset)));
        } else {
            j = static_cast<spyglass::Index>((r >> 2) % std::uint64_t(size));
        }
        m.rowIndex[static_cast<std::size_t>(k)] = i;
        m.colIndex[static_cast<std::size_t>(k)] = j;
    }
    return m;
}

template <typename Work>
double timeMs(Work&& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int main(int argc, char** argv) {
    const std::int64_t entries = argc > 1 ? std::atoll(argv[1]) : 100'000'000;
    const int imageSize = argc > 2 ? std::atoi(argv[2]) : 1024;
    const spyglass::Index size = 4'000'000;
    std::printf("bench_density: %lld entries, %d x %d matrix, %d x %d image, %u hardware threads\n",
                static_cast<long long>(entries), size, size, imageSize, imageSize, std::thread::hardware_concurrency());
    std::uint32_t sink = 0;
    // CPU time beside wall time: on a shared machine the wall clock also measures the neighbours.
    double cpuMsPerRun = 0;
    auto report = [&](const std::string& what, const spyglass::bench::TimingSummary& t) {
        std::printf("%-48s median %7.1f ms  (min %.1f, max %.1f, %d runs)  cpu %7.1f ms/run\n", what.c_str(),
                    t.medianMs, t.minMs, t.maxMs, t.repeats, cpuMsPerRun);
    };
    auto medianOf5 = [&](auto&& work) {
        const std::clock_t cpuStart = std::clock();
        const spyglass::bench::TimingSummary t = spyglass::bench::measure([&] { return timeMs(work); }, 1, 5);
        cpuMsPerRun = 1000.0 * double(std::clock() - cpuStart) / CLOCKS_PER_SEC / 6;
        return t;
    };
    const spyglass::MatrixWindow whole{0, double(size), 0, double(size)};
    // Zoomed past one cell per pixel: almost every entry is rejected by two compares.
    const spyglass::MatrixWindow zoomed{1'000'000.5, 1'000'300.5, 1'000'000, 1'000'300};

    int failures = 0;
    // The whole picture must hold every entry (and, for symmetric storage, every off-diagonal mirror).
    auto checkPicture = [&](const spyglass::Matrix& m, const char* what) {
        const spyglass::DensityImage image = spyglass::renderDensity(m, whole, imageSize, imageSize);
        std::uint64_t counted = 0;
        for (std::uint32_t c : image.counts) counted += c;
        std::uint64_t expected = m.rowIndex.size();
        if (m.symmetry == spyglass::Symmetry::Symmetric)
            for (std::size_t k = 0; k < m.rowIndex.size(); ++k) expected += m.rowIndex[k] != m.colIndex[k];
        if (counted != expected) {
            std::fprintf(stderr, "bench_density: %s picture counts %llu entries, the matrix has %llu\n", what,
                         static_cast<unsigned long long>(counted), static_cast<unsigned long long>(expected));
            ++failures;
        }
        const spyglass::MatrixStats stats = spyglass::computeStats(m);
        if (std::uint64_t(stats.stored) != m.rowIndex.size()) {
            std::fprintf(stderr, "bench_density: %s statistics store %lld entries, the matrix has %zu\n", what,
                         static_cast<long long>(stats.stored), m.rowIndex.size());
            ++failures;
        }
    };
    for (const bool rowSorted : {true, false}) {
        spyglass::Matrix m = syntheticMatrix(entries, size, rowSorted);
        checkPicture(m, rowSorted ? "row-sorted" : "random-order");
        const std::string order = rowSorted ? "row-sorted" : "random order";
        report("renderDensity whole, " + order, medianOf5([&] {
                   sink += spyglass::renderDensity(m, whole, imageSize, imageSize).maxCount;
               }));
        report("renderDensity 300x300-cell window, " + order, medianOf5([&] {
                   sink += spyglass::renderDensity(m, zoomed, imageSize, imageSize).maxCount;
               }));
        report("computeStats, " + order, medianOf5([&] { sink += std::uint32_t(spyglass::computeStats(m).diagonals); }));
        m.symmetry = spyglass::Symmetry::Symmetric;  // same entries read as a lower triangle: twice the work
        checkPicture(m, rowSorted ? "symmetric row-sorted" : "symmetric random-order");
        report("renderDensity whole, symmetric, " + order, medianOf5([&] {
                   sink += spyglass::renderDensity(m, whole, imageSize, imageSize).maxCount;
               }));
        report("computeStats, symmetric, " + order,
               medianOf5([&] { sink += std::uint32_t(spyglass::computeStats(m).diagonals); }));
    }
    std::printf("(checksum %u)\n", sink);
    std::printf("checks: %s\n", failures ? "FAILED" : "the pictures count every entry, the statistics every stored one");
    return failures ? 1 : 0;
}
