// Matrix Market reading speed at 1, 2, 4, ... all threads: MB/s and M entries/s of readMatrixMarket
// on generated files (real, integer, pattern, symmetric, gzip), median of 3 after a warm-up, with the
// floor measured in the same run over the same bytes: counting newlines on all threads (plain files)
// or inflating and counting on one thread (gzip: zlib cannot split a stream). Every thread count must
// give the matrix the one-thread read gives, else the program exits 1.
//   bench_mmparse [--entries N (default 10^8 with >= 8 hardware threads, else 10^7)] [--threads 1,2,4]
//                 [--kinds real,integer,pattern,symmetric,gzip]
//                 [--dir /tmp] [--keep] [--out STEM] [FILE ...]
// FILE (plain or .gz) replaces the generated files. --out writes STEM.md and STEM.json.
//   bench_mmparse --stencil N OUT.mtx   writes the 3-D 7-point stencil of an N^3 grid (values as
//   scipy.io.mmwrite prints them, %.16e) and exits: N = 160 gives 4.1 M rows, 28.5 M nonzeros, 1.1 GB
//   (bench/mmparse_vs_scipy.sh times it against scipy.io.mmread).
#include "spyglass/matrixmarket.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kRepeats = 3;

struct Row {
    std::string kind;
    unsigned threads = 0;  // 0: the floor
    double seconds = 0;
    double megabytes = 0;
    long long entries = 0;
};

double seconds(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The processor's name (/proc/cpuinfo's first "model name"), for the table's header.
std::string cpuModel() {
    std::FILE* info = std::fopen("/proc/cpuinfo", "r");
    if (info == nullptr) return "unknown processor";
    char line[512];
    std::string model = "unknown processor";
    while (std::fgets(line, sizeof line, info) != nullptr) {
        if (std::strncmp(line, "model name", 10) != 0) continue;
        const char* colon = std::strchr(line, ':');
        if (colon != nullptr) {
            model = colon + 1;
            model.erase(0, model.find_first_not_of(" \t"));
            model.erase(model.find_last_not_of(" \t\n") + 1);
        }
        break;
    }
    std::fclose(info);
    return model;
}

std::string utcNow() {
    const std::time_t now = std::time(nullptr);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    return text;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// A 10^6 x 10^6 matrix with uniformly random positions (symmetric: the lower triangle).
void generate(const std::string& path, const std::string& kind, long long entries) {
    const int dimension = 1000000;
    const bool gzip = kind == "gzip";
    const char* field = kind == "integer" ? "integer" : kind == "pattern" ? "pattern" : "real";
    const char* symmetry = kind == "symmetric" ? "symmetric" : "general";
    std::mt19937_64 random(42);
    std::uniform_int_distribution<int> index(1, dimension);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::uniform_int_distribution<int> integer(-100000, 100000);
    std::FILE* plain = gzip ? nullptr : std::fopen(path.c_str(), "wb");
    gzFile packed = gzip ? gzopen(path.c_str(), "wb6") : nullptr;
    if (plain == nullptr && packed == nullptr) {
        std::perror(path.c_str());
        std::exit(1);
    }
    std::string buffer = "%%MatrixMarket matrix coordinate " + std::string(field) + " " + symmetry +
                         "\n% bench_mmparse synthetic\n" + std::to_string(dimension) + " " + std::to_string(dimension) +
                         " " + std::to_string(entries) + "\n";
    auto flush = [&] {
        if (gzip)
            gzwrite(packed, buffer.data(), static_cast<unsigned>(buffer.size()));
        else
            std::fwrite(buffer.data(), 1, buffer.size(), plain);
        buffer.clear();
    };
    char number[32];
    auto put = [&](auto x) { buffer.append(number, std::to_chars(number, number + sizeof number, x).ptr); };
    for (long long k = 0; k < entries; ++k) {
        int i = index(random), j = index(random);
        if (kind == "symmetric" && i < j) std::swap(i, j);
        put(i);
        buffer += ' ';
        put(j);
        if (kind == "integer") {
            buffer += ' ';
            put(integer(random));
        } else if (kind != "pattern") {
            buffer += ' ';
            put(value(random));
        }
        buffer += '\n';
        if (buffer.size() > (std::size_t(1) << 24)) flush();
    }
    flush();
    if (gzip)
        gzclose(packed);
    else
        std::fclose(plain);
}

// The 7-point Laplacian of an n x n x n grid, general (both triangles), row by row.
void generateStencil(const std::string& path, int n) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) {
        std::perror(path.c_str());
        std::exit(1);
    }
    const long long rows = static_cast<long long>(n) * n * n;
    const long long nonzeros = 7 * rows - 6 * static_cast<long long>(n) * n;
    std::string buffer = "%%MatrixMarket matrix coordinate real general\n% 3-D 7-point stencil, " + std::to_string(n) +
                         "^3 grid (bench_mmparse --stencil)\n" + std::to_string(rows) + " " + std::to_string(rows) + " " +
                         std::to_string(nonzeros) + "\n";
    char number[40];
    auto entry = [&](long long i, long long j, double v) {
        buffer.append(number, std::to_chars(number, number + sizeof number, i + 1).ptr);
        buffer += ' ';
        buffer.append(number, std::to_chars(number, number + sizeof number, j + 1).ptr);
        buffer += ' ';
        buffer.append(number, std::to_chars(number, number + sizeof number, v, std::chars_format::scientific, 16).ptr);
        buffer += '\n';
    };
    const long long plane = static_cast<long long>(n) * n;
    for (long long r = 0; r < rows; ++r) {
        const long long x = r % n, y = (r / n) % n, z = r / plane;
        if (z > 0) entry(r, r - plane, -1.0);
        if (y > 0) entry(r, r - n, -1.0);
        if (x > 0) entry(r, r - 1, -1.0);
        entry(r, r, 6.0);
        if (x + 1 < n) entry(r, r + 1, -1.0);
        if (y + 1 < n) entry(r, r + n, -1.0);
        if (z + 1 < n) entry(r, r + plane, -1.0);
        if (buffer.size() > (std::size_t(1) << 24)) {
            std::fwrite(buffer.data(), 1, buffer.size(), file);
            buffer.clear();
        }
    }
    std::fwrite(buffer.data(), 1, buffer.size(), file);
    if (std::fclose(file) != 0) {
        std::perror(path.c_str());
        std::exit(1);
    }
}

long long fileBytes(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 ? static_cast<long long>(info.st_size) : 0;
}

bool isGzip(const std::string& path) {
    unsigned char magic[2] = {0, 0};
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) return false;
    const std::size_t got = std::fread(magic, 1, 2, file);
    std::fclose(file);
    return got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

// The least any reader must do: touch every byte once and find the lines.
long long countNewlines(const std::string& path, unsigned threads) {
    if (isGzip(path)) {
        gzFile file = gzopen(path.c_str(), "rb");
        gzbuffer(file, 1u << 20);
        std::vector<char> block(std::size_t(8) << 20);
        long long lines = 0;
        for (int got; (got = gzread(file, block.data(), static_cast<unsigned>(block.size()))) > 0;)
            lines += std::count(block.data(), block.data() + got, '\n');
        gzclose(file);
        return lines;
    }
    const int fd = ::open(path.c_str(), O_RDONLY);
    const auto size = static_cast<std::size_t>(fileBytes(path));
    const char* data = static_cast<const char*>(::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0));
    ::close(fd);
    std::vector<long long> counts(threads, 0);
    std::vector<std::thread> workers;
    const std::size_t slice = (size + threads - 1) / threads;
    for (unsigned t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            const std::size_t first = std::min(size, t * slice), last = std::min(size, first + slice);
            counts[t] = std::count(data + first, data + last, '\n');
        });
    }
    for (std::thread& worker : workers) worker.join();
    ::munmap(const_cast<char*>(data), size);
    long long total = 0;
    for (long long c : counts) total += c;
    return total;
}

bool sameMatrix(const spyglass::Matrix& a, const spyglass::Matrix& b) {
    auto sameBits = [](const std::vector<double>& x, const std::vector<double>& y) {
        return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0);
    };
    return a.rows == b.rows && a.cols == b.cols && a.field == b.field && a.symmetry == b.symmetry &&
           a.rowIndex == b.rowIndex && a.colIndex == b.colIndex && sameBits(a.real, b.real) && sameBits(a.imag, b.imag);
}

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        if (comma > start) parts.push_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    return parts;
}

} // namespace

int main(int argc, char** argv) {
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    // 10^8 entries (3.3 GB of text) where there are cores to read it; 10^7 on a small machine.
    long long entries = hardware >= 8 ? 100000000 : 10000000;
    std::vector<unsigned> threadCounts;
    std::vector<std::string> kinds = {"real", "integer", "pattern", "symmetric", "gzip"};
    std::vector<std::string> files;
    std::string dir = "/tmp", out;
    bool keep = false;
    for (int k = 1; k < argc; ++k) {
        const std::string arg = argv[k];
        if (arg == "--stencil" && k + 2 < argc) {
            const auto start = std::chrono::steady_clock::now();
            generateStencil(argv[k + 2], std::atoi(argv[k + 1]));
            std::printf("wrote %s in %.1f s\n", argv[k + 2], seconds(start));
            return 0;
        } else if (arg == "--entries" && k + 1 < argc) {
            entries = std::atoll(argv[++k]);
        } else if (arg == "--threads" && k + 1 < argc) {
            for (const std::string& t : split(argv[++k])) threadCounts.push_back(static_cast<unsigned>(std::atoi(t.c_str())));
        } else if (arg == "--kinds" && k + 1 < argc) {
            kinds = split(argv[++k]);
        } else if (arg == "--dir" && k + 1 < argc) {
            dir = argv[++k];
        } else if (arg == "--out" && k + 1 < argc) {
            out = argv[++k];
        } else if (arg == "--keep") {
            keep = true;
        } else if (!arg.empty() && arg[0] == '-') {
            std::fprintf(stderr, "bench_mmparse: unknown option %s\n", arg.c_str());
            return 2;
        } else {
            files.push_back(arg);
        }
    }
    if (threadCounts.empty()) {
        for (unsigned t = 1; t < hardware; t *= 2) threadCounts.push_back(t);
        threadCounts.push_back(hardware);
    }
    std::printf("bench_mmparse: %u hardware threads; thread counts", hardware);
    for (unsigned t : threadCounts) std::printf(" %u", t);
    std::printf("\n");

    std::vector<std::pair<std::string, std::string>> inputs;  // kind, path
    if (files.empty()) {
        for (const std::string& kind : kinds)
            inputs.push_back({kind, dir + "/spyglass_bench_mmparse_" + kind + "_" + std::to_string(entries) +
                                        (kind == "gzip" ? ".mtx.gz" : ".mtx")});
    } else {
        for (const std::string& file : files) inputs.push_back({file.substr(file.find_last_of('/') + 1), file});
    }

    std::vector<Row> rows;
    bool allSame = true;
    double speedupAt2 = 0;
    for (const auto& [kind, path] : inputs) {
        const bool generated = files.empty();
        if (generated) {
            const auto start = std::chrono::steady_clock::now();
            generate(path, kind, entries);
            std::printf("generated %s (%lld entries, %.0f MB) in %.1f s\n", path.c_str(), entries, fileBytes(path) / 1e6,
                        seconds(start));
        }
        const double megabytes = static_cast<double>(fileBytes(path)) / 1e6;
        try {
            // Floor: as many threads as the most the reader gets (one for gzip).
            std::vector<double> floorTimes;
            for (int r = 0; r <= kRepeats; ++r) {
                const auto start = std::chrono::steady_clock::now();
                const long long lines = countNewlines(path, threadCounts.back());
                if (r > 0) floorTimes.push_back(seconds(start));
                if (lines <= 0) throw std::runtime_error("no lines counted in " + path);
            }
            rows.push_back({kind, 0, median(floorTimes), megabytes, 0});
            spyglass::ReadOptions one;
            one.threads = 1;
            const spyglass::Matrix reference = spyglass::readMatrixMarket(path, one);
            double oneThread = 0;
            for (unsigned threads : threadCounts) {
                spyglass::ReadOptions options;
                options.threads = threads;
                std::vector<double> times;
                for (int r = 0; r <= kRepeats; ++r) {  // run 0 warms up
                    const auto start = std::chrono::steady_clock::now();
                    const spyglass::Matrix m = spyglass::readMatrixMarket(path, options);
                    const double t = seconds(start);
                    if (r > 0) times.push_back(t);
                    if (r == 1 && !sameMatrix(m, reference)) {
                        std::fprintf(stderr, "bench_mmparse: %s on %u threads differs from the one-thread read\n", path.c_str(), threads);
                        allSame = false;
                    }
                }
                rows.push_back({kind, threads, median(times), megabytes, static_cast<long long>(reference.stored())});
                if (threads == 1) oneThread = median(times);
                if (threads == 2 && oneThread > 0 && kind == "real") speedupAt2 = oneThread / median(times);
            }
            if (generated && reference.stored() != entries) {
                std::fprintf(stderr, "bench_mmparse: %s holds %lld entries, expected %lld\n", path.c_str(),
                             static_cast<long long>(reference.stored()), entries);
                allSame = false;
            }
        } catch (const std::exception& error) {
            std::fprintf(stderr, "bench_mmparse: %s\n", error.what());
            return 1;
        }
        if (generated && !keep) std::remove(path.c_str());
    }

    std::string table = "| file | threads | time (s) | MB/s | M entries/s | vs 1 thread | vs floor |\n|---|---:|---:|---:|---:|---:|---:|\n";
    char line[256];
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const Row& r = rows[k];
        double one = 0, floorTime = 0;
        for (const Row& o : rows) {
            if (o.kind != r.kind) continue;
            if (o.threads == 1) one = o.seconds;
            if (o.threads == 0) floorTime = o.seconds;
        }
        if (r.threads == 0) {
            std::snprintf(line, sizeof line, "| %s | floor: newlines%s | %.3f | %.0f | | | |\n", r.kind.c_str(),
                          r.kind == "gzip" || r.kind.find(".gz") != std::string::npos ? " (inflate, 1 thread)" : "",
                          r.seconds, r.megabytes / r.seconds);
        } else {
            std::snprintf(line, sizeof line, "| %s | %u | %.3f | %.0f | %.1f | %.2fx | %.1fx |\n", r.kind.c_str(), r.threads,
                          r.seconds, r.megabytes / r.seconds, static_cast<double>(r.entries) / 1e6 / r.seconds,
                          one > 0 ? one / r.seconds : 0.0, floorTime > 0 ? r.seconds / floorTime : 0.0);
        }
        table += line;
    }
    std::printf("\n%s", table.c_str());
    std::printf("\ntargets\n| target | measured | met |\n|---|---:|---|\n");
    if (speedupAt2 > 0)
        std::printf("| real general, 2 threads >= 1.7x one thread | %.2fx | %s |\n", speedupAt2, speedupAt2 >= 1.7 ? "yes" : "no");
    std::printf("| every thread count gives the one-thread matrix | %s | %s |\n", allSame ? "all equal" : "DIFFERS",
                allSame ? "yes" : "no");

    if (!out.empty()) {
        std::FILE* md = std::fopen((out + ".md").c_str(), "w");
        std::FILE* json = std::fopen((out + ".json").c_str(), "w");
        if (md != nullptr) {
            std::fprintf(md, "# bench_mmparse: %lld entries per generated file, %u hardware threads\n\n- Machine: %s\n- Date: %s\n\n%s",
                         entries, hardware, cpuModel().c_str(), utcNow().c_str(), table.c_str());
            std::fclose(md);
        }
        if (json != nullptr) {
            std::fprintf(json, "{\"hardware_threads\": %u, \"entries\": %lld, \"rows\": [", hardware, entries);
            for (std::size_t k = 0; k < rows.size(); ++k)
                std::fprintf(json, "%s{\"file\": \"%s\", \"threads\": %u, \"seconds\": %.6f, \"megabytes\": %.3f, \"entries\": %lld}",
                             k ? ", " : "", rows[k].kind.c_str(), rows[k].threads, rows[k].seconds, rows[k].megabytes,
                             rows[k].entries);
            std::fprintf(json, "]}\n");
            std::fclose(json);
        }
    }
    return allSame ? 0 : 1;
}
