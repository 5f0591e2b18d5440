// The partitioned algorithm on the CPU: the oracle of the GPU runs and what `--partitions P` runs in a
// build or on a machine without a GPU. Every partition keeps its own full-length x and receives only
// what the plan's exchange sends it, so a halo span that is too short shows up as a wrong result.
#include "core/multigpu_device.h"
#include "spyglass/error.h"
#include "spyglass/multigpu.h"
#include "spyglass/segdia_spmv.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>

namespace spyglass {

namespace {

using Clock = std::chrono::steady_clock;
double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

template <typename T>
std::vector<T> multiplyPart(const PartitionedMatrix<T>& matrix, int p, const std::vector<T>& x) {
    switch (matrix.plan.format) {
    case PartitionFormat::Csr: return spmvReference(matrix.csr[p], x);
    case PartitionFormat::SegmentedDia: return spmvReference(matrix.segmentedDia[p], x);
    case PartitionFormat::Hybrid: return hybridSpmvReference<T>(matrix.hybrid[p], x);
    }
    return {};
}

template <typename T>
void checkPartitioned(const PartitionedMatrix<T>& matrix) {
    const std::size_t parts = matrix.plan.parts.size();
    const std::size_t slices = matrix.plan.format == PartitionFormat::Csr            ? matrix.csr.size()
                               : matrix.plan.format == PartitionFormat::SegmentedDia ? matrix.segmentedDia.size()
                                                                                     : matrix.hybrid.size();
    if (parts == 0 || slices != parts)
        throw InputError("partitioned matrix: " + std::to_string(slices) + " slices for " + std::to_string(parts) + " partitions");
}

void checkRun(const PartitionRunOptions& options) {
    if (options.iterations < 1 || options.iterations > 1000000)
        throw InputError("power iteration: iterations must be 1..1000000 (got " + std::to_string(options.iterations) + ")");
    if (options.warmup < 0 || options.warmup >= options.iterations)
        throw InputError("power iteration: warm-up iterations must be 0.." + std::to_string(options.iterations - 1) + " (got " +
                         std::to_string(options.warmup) + ")");
}

// The median of the timed iterations (all of them when there are fewer).
double median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
    return values[values.size() / 2];
}

} // namespace

std::vector<double> powerStartVector(Index n) {
    // Positive (so not orthogonal to a Perron vector), varied (so not an eigenvector of a stencil by
    // accident), the same on every backend: a fixed linear congruential sequence in [0.5, 1.5).
    std::vector<double> x(static_cast<std::size_t>(n));
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    double norm = 0;
    for (double& v : x) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        v = 0.5 + double(state >> 11) * (1.0 / 9007199254740992.0);
        norm += v * v;
    }
    norm = std::sqrt(norm);
    for (double& v : x) v /= norm;
    return x;
}

// The plan and, for each of its parts, slice(out, part) adding that part's rows in the plan's format.
template <typename T, typename Slice> PartitionedMatrix<T> partitionAlong(PartitionPlan plan, Slice&& slice) {
    PartitionedMatrix<T> out;
    out.plan = std::move(plan);
    for (const RowPartition& p : out.plan.parts) slice(out, p);
    return out;
}

template <typename T>
PartitionedMatrix<T> partitionMatrix(const CsrMatrix<T>& a, int parts, HaloExchange exchange) {
    return partitionAlong<T>(planRowPartitions(csrRowCosts(a), a.cols, parts, PartitionFormat::Csr, sizeof(T), exchange),
                             [&](PartitionedMatrix<T>& out, const RowPartition& p) { out.csr.push_back(sliceRows(a, p.rowBegin, p.rowEnd)); });
}

template <typename T>
PartitionedMatrix<T> partitionMatrix(const SegmentedDiaMatrix<T>& a, int parts, HaloExchange exchange) {
    return partitionAlong<T>(
        planRowPartitions(segmentedDiaRowCosts(a), a.cols, parts, PartitionFormat::SegmentedDia, sizeof(T), exchange),
        [&](PartitionedMatrix<T>& out, const RowPartition& p) { out.segmentedDia.push_back(sliceSegments(a, p.rowBegin, p.rowEnd)); });
}

template <typename T>
PartitionedMatrix<T> partitionMatrix(const HybridBinaryMatrix& a, int parts, HaloExchange exchange) {
    return partitionAlong<T>(
        planRowPartitions(hybridRowCosts(a), a.cols, parts, PartitionFormat::Hybrid, sizeof(T), exchange),
        [&](PartitionedMatrix<T>& out, const RowPartition& p) { out.hybrid.push_back(sliceHybridRows(a, p.rowBegin, p.rowEnd)); });
}

template <typename T>
std::size_t PartitionedMatrix<T>::partBytes(int p) const {
    switch (plan.format) {
    case PartitionFormat::Csr: {
        const CsrMatrix<T>& a = csr[p];
        return (a.rowPtr.size()) * sizeof(std::int32_t) + a.colIndex.size() * sizeof(Index) + a.values.size() * sizeof(T);
    }
    case PartitionFormat::SegmentedDia: return computeSegmentedDiaStats(segmentedDia[p]).bytes;
    case PartitionFormat::Hybrid: return hybrid[p].encodedBytes();
    }
    return 0;
}

template <typename T>
std::vector<T> partitionedSpmv(const PartitionedMatrix<T>& matrix, const std::vector<T>& x, const PartitionRunOptions& options) {
    checkPartitioned(matrix);
    if (x.size() != static_cast<std::size_t>(matrix.plan.cols))
        throw InputError("partitioned SpMV: x has " + std::to_string(x.size()) + " entries, the matrix " +
                         std::to_string(matrix.plan.cols) + " columns");
    if (options.backend == PartitionBackend::Cuda) return multigpu_detail::partitionedSpmvOnDevices(matrix, x, options);
    std::vector<T> y;
    y.reserve(static_cast<std::size_t>(matrix.plan.rows));
    for (std::size_t p = 0; p < matrix.plan.parts.size(); ++p) {
        const std::vector<T> part = multiplyPart(matrix, static_cast<int>(p), x);
        y.insert(y.end(), part.begin(), part.end());
    }
    return y;
}

template <typename T>
PowerIterationResult powerIterationReference(const PartitionedMatrix<T>& matrix, const PartitionRunOptions& options,
                                             const std::vector<double>& x0);

template <typename T>
PowerIterationResult powerIteration(const PartitionedMatrix<T>& matrix, const PartitionRunOptions& options) {
    checkPartitioned(matrix);
    checkRun(options);
    const PartitionPlan& plan = matrix.plan;
    if (plan.rows != plan.cols)
        throw InputError("power iteration needs a square matrix (got " + std::to_string(plan.rows) + " x " +
                         std::to_string(plan.cols) + ")");
    if (plan.rows == 0) throw InputError("power iteration: the matrix is empty");
    const std::vector<double> x0 = powerStartVector(plan.rows);
    PowerIterationResult result = options.backend == PartitionBackend::Cuda
                                      ? multigpu_detail::powerIterationOnDevices(matrix, options, x0)
                                      : powerIterationReference(matrix, options, x0);
    // A x of zero (x in the null space) or an overflow leaves nothing to normalise: say where.
    for (std::size_t k = 0; k < result.rayleigh.size(); ++k)
        if (!std::isfinite(result.rayleigh[k]))
            throw InputError("power iteration: x'Ax / x'x is not finite at iteration " + std::to_string(k + 1) +
                             " (A x became zero, or the matrix holds NaN/Inf or overflows " + (sizeof(T) == 4 ? "float" : "double") + ")");
    if (!std::all_of(result.x.begin(), result.x.end(), [](double v) { return std::isfinite(v); }))
        throw InputError("power iteration: the last iterate is not finite (A x became zero at the last iteration, or overflowed)");
    return result;
}

template <typename T>
PowerIterationResult powerIterationReference(const PartitionedMatrix<T>& matrix, const PartitionRunOptions& options,
                                             const std::vector<double>& x0) {
    const PartitionPlan& plan = matrix.plan;

    const auto setupStart = Clock::now();
    const int parts = static_cast<int>(plan.parts.size());
    std::vector<std::vector<T>> x(static_cast<std::size_t>(parts), std::vector<T>(x0.begin(), x0.end()));
    PowerIterationResult result;
    result.device = "CPU reference";
    result.ranks = 1;
    result.setupMs = millisecondsSince(setupStart);
    std::vector<double> iterationMs, computeMs, communicationMs;
    for (int k = 0; k < options.iterations; ++k) {
        if (options.cancel && options.cancel->load()) throw CancelledError();
        const auto start = Clock::now();
        std::vector<std::vector<T>> y(static_cast<std::size_t>(parts));
        double yy = 0, xy = 0, xx = 0;  // summed partition by partition, as the all-reduce would
        for (int p = 0; p < parts; ++p) {
            y[p] = multiplyPart(matrix, p, x[p]);
            double pyy = 0, pxy = 0, pxx = 0;
            const Index first = plan.parts[p].rowBegin;
            for (std::size_t i = 0; i < y[p].size(); ++i) {
                const double yi = double(y[p][i]), xi = double(x[p][first + i]);
                pyy += yi * yi;
                pxy += xi * yi;
                pxx += xi * xi;
            }
            yy += pyy, xy += pxy, xx += pxx;
        }
        const auto computed = Clock::now();
        result.rayleigh.push_back(xy / xx);
        const double scale = 1.0 / std::sqrt(yy);
        for (int p = 0; p < parts; ++p)
            for (std::size_t i = 0; i < y[p].size(); ++i) x[p][plan.parts[p].rowBegin + i] = T(double(y[p][i]) * scale);
        if (plan.exchange == HaloExchange::SendRecv) {
            for (const HaloTransfer& t : plan.halo)
                std::copy(x[t.from].begin() + t.begin, x[t.from].begin() + t.end, x[t.to].begin() + t.begin);
        } else {
            for (int from = 0; from < parts; ++from)
                for (int to = 0; to < parts; ++to)
                    if (to != from)
                        std::copy(x[from].begin() + plan.parts[from].rowBegin, x[from].begin() + plan.parts[from].rowEnd,
                                  x[to].begin() + plan.parts[from].rowBegin);
        }
        if (k >= options.warmup) {
            iterationMs.push_back(millisecondsSince(start));
            computeMs.push_back(std::chrono::duration<double, std::milli>(computed - start).count());
            communicationMs.push_back(millisecondsSince(computed));
        }
    }
    result.x.resize(static_cast<std::size_t>(plan.rows));
    for (int p = 0; p < parts; ++p)
        for (Index r = plan.parts[p].rowBegin; r < plan.parts[p].rowEnd; ++r) result.x[r] = double(x[p][r]);
    result.iterationMs = median(iterationMs);
    if (!iterationMs.empty()) {
        result.iterationMinMs = *std::min_element(iterationMs.begin(), iterationMs.end());
        result.iterationMaxMs = *std::max_element(iterationMs.begin(), iterationMs.end());
    }
    result.computeMs = median(computeMs);
    result.communicationMs = median(communicationMs);
    result.timedIterations = static_cast<int>(iterationMs.size());
    return result;
}

int cudaDeviceCount() { return multigpu_detail::deviceCount(); }

#define SPYGLASS_INSTANTIATE_PARTITIONED(T)                                                                            \
    template struct PartitionedMatrix<T>;                                                                               \
    template PartitionedMatrix<T> partitionMatrix<T>(const CsrMatrix<T>&, int, HaloExchange);                           \
    template PartitionedMatrix<T> partitionMatrix<T>(const SegmentedDiaMatrix<T>&, int, HaloExchange);                  \
    template PartitionedMatrix<T> partitionMatrix<T>(const HybridBinaryMatrix&, int, HaloExchange);                     \
    template std::vector<T> partitionedSpmv<T>(const PartitionedMatrix<T>&, const std::vector<T>&, const PartitionRunOptions&); \
    template PowerIterationResult powerIteration<T>(const PartitionedMatrix<T>&, const PartitionRunOptions&);
SPYGLASS_INSTANTIATE_PARTITIONED(float)
SPYGLASS_INSTANTIATE_PARTITIONED(double)

} // namespace spyglass
