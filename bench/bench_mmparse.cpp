// Matrix Market parsing speed, single-threaded: MB/s of the in-memory parser and of the whole
// file read, median of 3. Without a path it writes a >= 50 M entry real general file into /tmp.
//   bench_mmparse [file.mtx] [--entries N] [--keep]
#include "spyglass/matrixmarket.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kRepeats = 3;

std::string generate(const std::string& path, long long entries) {
    const int dimension = 1000000;
    std::mt19937_64 random(42);
    std::uniform_int_distribution<int> index(1, dimension);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) {
        std::perror(path.c_str());
        std::exit(1);
    }
    std::fprintf(file, "%%%%MatrixMarket matrix coordinate real general\n%% bench_mmparse synthetic\n%d %d %lld\n",
                 dimension, dimension, entries);
    std::string buffer;
    buffer.reserve(std::size_t(1) << 24);
    char number[32];
    for (long long k = 0; k < entries; ++k) {
        buffer.append(number, std::to_chars(number, number + sizeof number, index(random)).ptr);
        buffer += ' ';
        buffer.append(number, std::to_chars(number, number + sizeof number, index(random)).ptr);
        buffer += ' ';
        buffer.append(number, std::to_chars(number, number + sizeof number, value(random)).ptr);
        buffer += '\n';
        if (buffer.size() > (std::size_t(1) << 24) - 64) {
            std::fwrite(buffer.data(), 1, buffer.size(), file);
            buffer.clear();
        }
    }
    std::fwrite(buffer.data(), 1, buffer.size(), file);
    std::fclose(file);
    return path;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

double seconds(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU time of this thread: on a shared, loaded machine it shows what the parser costs itself.
double threadCpuSeconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

} // namespace

int main(int argc, char** argv) {
    std::string path;
    long long entries = 50000000;
    bool keep = false;
    for (int k = 1; k < argc; ++k) {
        if (std::strcmp(argv[k], "--entries") == 0 && k + 1 < argc) {
            entries = std::atoll(argv[++k]);
        } else if (std::strcmp(argv[k], "--keep") == 0) {
            keep = true;
        } else {
            path = argv[k];
        }
    }
    const bool generated = path.empty();
    if (generated) {
        path = "/tmp/spyglass_bench_mmparse_" + std::to_string(entries) + ".mtx";
        const auto start = std::chrono::steady_clock::now();
        generate(path, entries);
        std::printf("generated %s (%lld entries) in %.1f s\n", path.c_str(), entries, seconds(start));
    }

    try {
        const std::string text = slurp(path);
        const double megabytes = static_cast<double>(text.size()) / 1e6;
        std::vector<double> parseTimes;
        std::vector<double> readTimes;
        std::vector<double> parseCpuTimes;
        spyglass::Count stored = 0;
        for (int r = 0; r < kRepeats; ++r) {
            auto start = std::chrono::steady_clock::now();
            const double cpuStart = threadCpuSeconds();
            stored = spyglass::parseMatrixMarket(text, path).stored();
            parseCpuTimes.push_back(threadCpuSeconds() - cpuStart);
            parseTimes.push_back(seconds(start));
            start = std::chrono::steady_clock::now();
            stored = spyglass::readMatrixMarket(path).stored();
            readTimes.push_back(seconds(start));
        }
        std::printf("file: %s, %.1f MB, %lld stored entries\n", path.c_str(), megabytes, static_cast<long long>(stored));
        std::printf("parse in memory: median %.3f s = %.0f MB/s, %.1f M entries/s (of %d runs)\n", median(parseTimes),
                    megabytes / median(parseTimes), static_cast<double>(stored) / 1e6 / median(parseTimes), kRepeats);
        std::printf("parse CPU time : median %.3f s = %.0f MB/s (of %d runs)\n", median(parseCpuTimes),
                    megabytes / median(parseCpuTimes), kRepeats);
        std::printf("read file      : median %.3f s = %.0f MB/s (of %d runs)\n", median(readTimes),
                    megabytes / median(readTimes), kRepeats);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "bench_mmparse: %s\n", error.what());
        return 1;
    }
    if (generated && !keep) {
        std::remove(path.c_str());
    }
    return 0;
}
