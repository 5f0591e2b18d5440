// Batches for method E: random, LTE MMSE channel matrices and ill-conditioned matrices with a chosen
// condition number. Everything is computed in double precision and rounded to T at the end.
#include "spyglass/batchedinverse_generators.h"

#include "core/batchedinverse_scalar.h"
#include "spyglass/error.h"

#include <cmath>
#include <complex>
#include <random>
#include <string>

namespace spyglass {

namespace {
using namespace inverse_detail;
using Rng = std::mt19937_64;

template <typename T> Wide<T> uniformEntry(Rng& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    if constexpr (isComplex<T>) {
        const double re = u(rng);
        return Wide<T>(re, u(rng));
    } else {
        return u(rng);
    }
}

// Unit variance: E|x|^2 = 1 for real and complex alike.
template <typename T> Wide<T> gaussianEntry(Rng& rng) {
    if constexpr (isComplex<T>) {
        std::normal_distribution<double> g(0.0, std::sqrt(0.5));
        const double re = g(rng);
        return Wide<T>(re, g(rng));
    } else {
        std::normal_distribution<double> g(0.0, 1.0);
        return g(rng);
    }
}

template <typename W> W conjugateOf(const W& x) {
    if constexpr (std::is_same_v<W, double>) return x;
    else return std::conj(x);
}

// A random unitary (orthogonal for real T) matrix: modified Gram-Schmidt on Gaussian columns,
// column-major. Gaussian columns are independent with probability one, so no column collapses.
template <typename T> std::vector<Wide<T>> randomUnitary(int n, Rng& rng) {
    using W = Wide<T>;
    std::vector<W> q(static_cast<std::size_t>(n) * n);
    for (auto& x : q) x = gaussianEntry<T>(rng);
    for (int j = 0; j < n; ++j) {
        W* column = &q[static_cast<std::size_t>(j) * n];
        for (int pass = 0; pass < 2; ++pass)  // twice is enough for orthogonality to working precision
            for (int l = 0; l < j; ++l) {
                const W* previous = &q[static_cast<std::size_t>(l) * n];
                W dot = 0;
                for (int i = 0; i < n; ++i) dot += conjugateOf(previous[i]) * column[i];
                for (int i = 0; i < n; ++i) column[i] -= dot * previous[i];
            }
        double norm = 0;
        for (int i = 0; i < n; ++i) norm += std::norm(std::complex<double>(column[i]));
        norm = std::sqrt(norm);
        for (int i = 0; i < n; ++i) column[i] /= norm;
    }
    return q;
}

template <typename T> void fillRandom(T* out, int n, Rng& rng) {
    for (int e = 0; e < n * n; ++e) out[e] = T(uniformEntry<T>(rng));
}

template <typename T> void fillLte(T* out, int n, double sigma2, Rng& rng) {
    using W = Wide<T>;
    std::vector<W> h(static_cast<std::size_t>(n) * n);
    for (auto& x : h) x = gaussianEntry<T>(rng);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            W sum = (i == j) ? W(sigma2) : W(0);
            for (int l = 0; l < n; ++l)  // (H^H H)(i,j) = sum_l conj(H(l,i)) H(l,j)
                sum += conjugateOf(h[static_cast<std::size_t>(i) * n + l]) * h[static_cast<std::size_t>(j) * n + l];
            out[static_cast<std::size_t>(j) * n + i] = T(sum);
        }
}

template <typename T> void fillIllConditioned(T* out, int n, double condition, Rng& rng) {
    using W = Wide<T>;
    const std::vector<W> u = randomUnitary<T>(n, rng);
    const std::vector<W> v = randomUnitary<T>(n, rng);
    std::vector<double> s(n);
    for (int l = 0; l < n; ++l) s[l] = n == 1 ? 1.0 : std::pow(condition, -double(l) / (n - 1));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            W sum = 0;  // (U S V^H)(i,j) = sum_l U(i,l) s_l conj(V(j,l))
            for (int l = 0; l < n; ++l)
                sum += u[static_cast<std::size_t>(l) * n + i] * s[l] * conjugateOf(v[static_cast<std::size_t>(l) * n + j]);
            out[static_cast<std::size_t>(j) * n + i] = T(sum);
        }
}
} // namespace

template <typename T>
std::vector<T> generateBatch(const BatchSpec& spec) {
    if (spec.n < 1) throw InputError("batch generator: the order n must be at least 1 (got " + std::to_string(spec.n) + ")");
    if (spec.count < 0) throw InputError("batch generator: negative batch size " + std::to_string(spec.count));
    if (spec.first < 0) throw InputError("batch generator: negative first matrix " + std::to_string(spec.first));
    if (spec.kind == BatchKind::IllConditioned && !(spec.condition >= 1.0))
        throw InputError("batch generator: the condition number must be at least 1 (got " + std::to_string(spec.condition) + ")");
    if (spec.kind == BatchKind::LteChannel && !std::isfinite(spec.snrDb))
        throw InputError("batch generator: the SNR must be finite");
    const std::size_t size = static_cast<std::size_t>(spec.n) * spec.n;
    std::vector<T> batch(size * static_cast<std::size_t>(spec.count));
    Rng rng(spec.seed);
    const double sigma2 = std::pow(10.0, -spec.snrDb / 10.0);
    std::vector<T> scratch(spec.first > 0 ? size : 0);  // the matrices before `first`, drawn and dropped
    for (std::int64_t b = -spec.first; b < spec.count; ++b) {
        T* out = b < 0 ? scratch.data() : batch.data() + b * size;
        switch (spec.kind) {
        case BatchKind::Random: fillRandom(out, spec.n, rng); break;
        case BatchKind::LteChannel: fillLte(out, spec.n, sigma2, rng); break;
        case BatchKind::IllConditioned: fillIllConditioned(out, spec.n, spec.condition, rng); break;
        }
    }
    return batch;
}

template std::vector<float> generateBatch<float>(const BatchSpec&);
template std::vector<double> generateBatch<double>(const BatchSpec&);
template std::vector<std::complex<float>> generateBatch<std::complex<float>>(const BatchSpec&);
template std::vector<std::complex<double>> generateBatch<std::complex<double>>(const BatchSpec&);

} // namespace spyglass
