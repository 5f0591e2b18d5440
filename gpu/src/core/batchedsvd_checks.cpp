// Method C test batches and accuracy figures, shared by the tests, the benchmark and the CLI.
#include "core/batchedsvd_scalar.h"
#include "spyglass/batchedsvd.h"
#include "spyglass/error.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace spyglass {

using namespace svd_detail;

int sonarSourceCount(int n) { return std::clamp(n / 4, 1, 4); }

namespace {
template <typename T> T randomScalar(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    if constexpr (isComplex<T>) {
        const double re = uniform(rng);
        return T(static_cast<Real<T>>(re), static_cast<Real<T>>(uniform(rng)));
    } else {
        return static_cast<T>(uniform(rng));
    }
}
constexpr double kPi = 3.14159265358979323846;

// One SonarSnapshots matrix (rows = m snapshots, columns = n sensors), as batchedsvd.h describes.
template <typename T> void sonarSnapshots(T* out, int m, int n, std::mt19937_64& rng) {
    const int sources = sonarSourceCount(n);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::normal_distribution<double> gauss(0.0, 1.0);
    // Directions u = sin(theta), one per slot of the range, jittered within the first part of it so
    // that neighbours stay at least a beamwidth (2/n) apart for every n (d grows with n). A real signal
    // cannot tell u from -u (cos is even), so real types keep u in [0.15, 0.9]: mirror images stay
    // apart too. Complex types use [-0.75, 0.75].
    const double lo = isComplex<T> ? -0.75 : 0.15, span = isComplex<T> ? 1.5 : 0.75;
    const double jitter = isComplex<T> ? 0.5 : 0.25;
    std::vector<std::complex<double>> steering(static_cast<std::size_t>(sources) * n);
    std::vector<double> amplitude(sources);
    for (int k = 0; k < sources; ++k) {
        const double u = lo + span * (k + jitter * unit(rng)) / sources;
        const double offset = 2 * kPi * unit(rng);
        double norm = 0;
        for (int s = 0; s < n; ++s) {
            const double phase = kPi * s * u;
            auto& x = steering[static_cast<std::size_t>(k) * n + s];
            x = isComplex<T> ? std::polar(1.0, -phase) : std::complex<double>(std::cos(phase + offset), 0.0);
            norm += std::norm(x);
        }
        // A real cosine's norm depends on u and the offset: every source gets norm sqrt(n).
        const double scale = norm > 0 ? std::sqrt(n / norm) : 0.0;
        for (int s = 0; s < n; ++s) steering[static_cast<std::size_t>(k) * n + s] *= scale;
        amplitude[k] = std::sqrt(std::pow(10.0, -0.25 * k));  // 0, -2.5, -5, -7.5 dB
    }
    const double noise = 0.1;  // power 0.01 per entry
    // Complex: power split evenly between the real and imaginary parts.
    const double part = isComplex<T> ? std::sqrt(0.5) : 1.0;
    std::vector<std::complex<double>> signal(static_cast<std::size_t>(sources));
    for (int t = 0; t < m; ++t) {
        for (int k = 0; k < sources; ++k)
            signal[k] = amplitude[k] * part * std::complex<double>(gauss(rng), isComplex<T> ? gauss(rng) : 0.0);
        for (int s = 0; s < n; ++s) {
            std::complex<double> x = noise * part * std::complex<double>(gauss(rng), isComplex<T> ? gauss(rng) : 0.0);
            for (int k = 0; k < sources; ++k) x += signal[k] * steering[static_cast<std::size_t>(k) * n + s];
            if constexpr (isComplex<T>) out[static_cast<std::size_t>(s) * m + t] = T(static_cast<Real<T>>(x.real()), static_cast<Real<T>>(x.imag()));
            else out[static_cast<std::size_t>(s) * m + t] = static_cast<T>(x.real());
        }
    }
}
} // namespace

template <typename T>
std::vector<T> generateSvdBatch(SvdBatchKind kind, int m, int n, std::int64_t count, std::uint64_t seed, std::int64_t first) {
    if (n < 1 || m < 1 || count < 0 || first < 0) throw InputError("SVD batch: needs m, n >= 1 and count, first >= 0");
    std::mt19937_64 rng(seed);
    const std::size_t size = static_cast<std::size_t>(m) * n;
    std::vector<T> batch(size * static_cast<std::size_t>(count));
    const int rank = std::max(1, n / 2);
    const double decades = std::is_same_v<Real<T>, float> ? 6.0 : 12.0;
    std::vector<Wide<T>> left(static_cast<std::size_t>(m) * rank), right(static_cast<std::size_t>(rank) * n);
    std::vector<T> scratch(first > 0 ? size : 0);  // the matrices before `first`, drawn and dropped
    for (std::int64_t b = -first; b < count; ++b) {
        T* out = b < 0 ? scratch.data() : batch.data() + b * size;
        if (kind == SvdBatchKind::SonarSnapshots) {
            sonarSnapshots(out, m, n, rng);
            continue;
        }
        if (kind == SvdBatchKind::RankDeficient) {
            for (auto& x : left) x = static_cast<Wide<T>>(randomScalar<T>(rng));
            for (auto& x : right) x = static_cast<Wide<T>>(randomScalar<T>(rng));
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < m; ++i) {
                    Wide<T> s = 0;
                    for (int k = 0; k < rank; ++k) s += left[static_cast<std::size_t>(k) * m + i] * right[static_cast<std::size_t>(j) * rank + k];
                    out[static_cast<std::size_t>(j) * m + i] = static_cast<T>(s);
                }
            continue;
        }
        for (int j = 0; j < n; ++j) {
            const Real<T> scale = kind == SvdBatchKind::Graded && n > 1
                                      ? static_cast<Real<T>>(std::pow(10.0, -decades * j / (n - 1))) : Real<T>(1);
            for (int i = 0; i < m; ++i) out[static_cast<std::size_t>(j) * m + i] = randomScalar<T>(rng) * scale;
        }
    }
    return batch;
}

template <typename T>
SvdAccuracy svdAccuracy(const T* a, const T* u, const SvdReal<T>* sigma, const T* v, int m, int n, std::int64_t count,
                        const std::vector<SvdStatus>* status) {
    SvdAccuracy acc;
    const std::size_t size = static_cast<std::size_t>(m) * n;
    std::vector<Wide<T>> us(size);
    for (std::int64_t b = 0; b < count; ++b) {
        if (status && (*status)[b] == SvdStatus::NonFiniteInput) continue;
        const T* ab = a + b * size;
        const T* ub = u + b * size;
        const T* vb = v + b * static_cast<std::size_t>(n) * n;
        const SvdReal<T>* sb = sigma + b * n;
        double diff = 0, norm = 0;
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                Wide<T> s = 0;  // (U S V^H)(i,j) = sum_k u(i,k) s_k conj(v(j,k))
                for (int k = 0; k < n; ++k)
                    s += static_cast<Wide<T>>(ub[static_cast<std::size_t>(k) * m + i]) * static_cast<double>(sb[k]) *
                         conjugate(static_cast<Wide<T>>(vb[static_cast<std::size_t>(k) * n + j]));
                const Wide<T> x = static_cast<Wide<T>>(ab[static_cast<std::size_t>(j) * m + i]);
                diff += squaredMagnitude(x - s);
                norm += squaredMagnitude(x);
            }
        const double rec = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
        acc.reconstruction = std::max(acc.reconstruction, std::isnan(rec) ? INFINITY : rec);
        auto gram = [](const T* q, int rows, int cols) {
            double worst = 0;
            for (int x = 0; x < cols; ++x)
                for (int y = 0; y < cols; ++y) {
                    Wide<T> s = 0;
                    for (int r = 0; r < rows; ++r)
                        s += conjugate(static_cast<Wide<T>>(q[static_cast<std::size_t>(x) * rows + r])) *
                             static_cast<Wide<T>>(q[static_cast<std::size_t>(y) * rows + r]);
                    const double e = std::abs(s - Wide<T>(x == y ? 1.0 : 0.0));
                    worst = std::max(worst, std::isnan(e) ? INFINITY : e);
                }
            return worst;
        };
        acc.uOrthogonality = std::max(acc.uOrthogonality, gram(ub, m, n));
        acc.vOrthogonality = std::max(acc.vOrthogonality, gram(vb, n, n));
        bool ordered = true;
        for (int k = 0; k < n; ++k)
            if (!(sb[k] >= 0) || (k > 0 && sb[k] > sb[k - 1])) ordered = false;
        if (!ordered) acc.unsortedOrNegative += 1;
    }
    return acc;
}

#define SPYGLASS_INSTANTIATE_SVD_CHECKS(T)                                                                            \
    template std::vector<T> generateSvdBatch<T>(SvdBatchKind, int, int, std::int64_t, std::uint64_t, std::int64_t); \
    template SvdAccuracy svdAccuracy<T>(const T*, const T*, const SvdReal<T>*, const T*, int, int, std::int64_t,     \
                                        const std::vector<SvdStatus>*);
SPYGLASS_INSTANTIATE_SVD_CHECKS(float)
SPYGLASS_INSTANTIATE_SVD_CHECKS(double)
SPYGLASS_INSTANTIATE_SVD_CHECKS(std::complex<float>)
SPYGLASS_INSTANTIATE_SVD_CHECKS(std::complex<double>)

} // namespace spyglass
