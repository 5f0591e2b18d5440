#pragma once
// The accuracy check of every bench_batchedsvd row: per matrix of a sample, singular values against
// a reference, the orthogonality of U and V and the reconstruction, each against a bound; a row whose
// error is above its bound fails the benchmark. Two error models:
// - Backward stable (Jacobi, LAPACK gesvd, cuSOLVER gesvdjBatched): sigma within 8 n eps sigma_max of
//   the reference (the bound of tst_cuda_batchedsvd; both sides are within rounding of the true
//   values), reconstruction and both orthogonalities within 1e-5 n (the project's fp32 target).
// - Gram (cuSOLVER gesvdaStridedBatched, which diagonalises A^H A): the squares sigma^2 within
//   delta sigma_max^2, delta = 8 (m + n) eps (forming A^H A and its eigensolver; an error of up to
//   delta / sigma_k in sigma_k, sqrt(delta) for sigma = 0); V within 1e-5 n; the reconstruction
//   within sqrt(n delta) (every sigma off by up to sqrt(delta)); U's orthogonality degrades as
//   (sigma_max / sigma_k)^2 (NVIDIA documents U as the least accurate output): reported, not bounded.
//   Its h_R_nrmF must equal ||A - U S V^H||_F measured here (same quantity, different rounding).
#include "spyglass/batchedsvd.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace spyglass::bench {

enum class SvdErrorModel { BackwardStable, Gram };

struct SvdRowAccuracy {
    double sigmaError = 0;      // max |sigma - reference| / sigma_max over the sample
    double uOrthogonality = 0;  // max |U^H U - I|
    double vOrthogonality = 0;  // max |V^H V - I|
    double reconstruction = 0;  // max ||A - U S V^H||_F / ||A||_F
    double boundUse = 0;        // max over the bounded measures of error / bound (<= 1: passed)
    double maxVendorResidual = std::numeric_limits<double>::quiet_NaN();  // h_R_nrmF over the sample
    std::string failure;        // empty when every bounded measure is within its bound
    bool passed() const { return failure.empty(); }
};

template <typename T> double svdEps() { return std::numeric_limits<SvdReal<T>>::epsilon(); }

// a, u, v, sigma: the first `sample` matrices of m x n (u m x n, v n x n); referenceSigma likewise.
// vendorResidual: h_R_nrmF of the same matrices (Gram model), or nullptr.
template <typename T>
SvdRowAccuracy checkSvdRow(const T* a, const T* u, const SvdReal<T>* sigma, const T* v, int m, int n, std::int64_t sample,
                           const SvdReal<T>* referenceSigma, SvdErrorModel model, const double* vendorResidual = nullptr) {
    const std::size_t mn = static_cast<std::size_t>(m) * n, nn = static_cast<std::size_t>(n) * n;
    const double eps = svdEps<T>();
    const double factorBound = 1e-5 * n;
    const double sigmaBound = 8.0 * n * eps;
    const double delta = 8.0 * (m + n) * eps;
    const double gramReconstructionBound = std::sqrt(n * delta);
    SvdRowAccuracy row;
    char text[240];
    auto bounded = [&](double error, double bound, const char* what, std::int64_t b) {
        const double use = error / bound;
        if (!(use <= 1.0) && row.failure.empty()) {  // NaN fails too
            std::snprintf(text, sizeof text, "matrix %lld: %s %.3g above its bound %.3g", static_cast<long long>(b), what,
                          error, bound);
            row.failure = text;
        }
        row.boundUse = std::isnan(use) ? use : std::max(row.boundUse, use);
    };
    for (std::int64_t b = 0; b < sample; ++b) {
        const SvdReal<T>* s = sigma + b * n;
        const SvdReal<T>* r = referenceSigma + b * n;
        const double scale = r[0] > 0 ? double(r[0]) : 1.0;
        double sigmaError = 0, gramError = 0;
        for (int k = 0; k < n; ++k) {
            const double got = s[k], want = r[k];
            sigmaError = std::max(sigmaError, std::abs(got - want) / scale);
            gramError = std::max(gramError, std::abs(got * got - want * want) / (scale * scale));
            if (std::isnan(got)) sigmaError = gramError = got;
        }
        const SvdAccuracy acc = svdAccuracy(a + b * mn, u + b * mn, s, v + b * nn, m, n, 1);
        row.sigmaError = std::max(row.sigmaError, sigmaError);
        row.uOrthogonality = std::max(row.uOrthogonality, acc.uOrthogonality);
        row.vOrthogonality = std::max(row.vOrthogonality, acc.vOrthogonality);
        row.reconstruction = std::max(row.reconstruction, acc.reconstruction);
        if (acc.unsortedOrNegative > 0 && row.failure.empty())
            row.failure = "matrix " + std::to_string(b) + ": singular values not descending and >= 0";
        if (model == SvdErrorModel::BackwardStable) {
            bounded(sigmaError, sigmaBound, "sigma error / sigma_max", b);
            bounded(acc.uOrthogonality, factorBound, "|U^H U - I|", b);
            bounded(acc.vOrthogonality, factorBound, "|V^H V - I|", b);
            bounded(acc.reconstruction, factorBound, "||A-USV^H||/||A||", b);
        } else {
            bounded(gramError, delta, "|sigma^2 - reference^2| / sigma_max^2", b);
            bounded(acc.vOrthogonality, factorBound, "|V^H V - I|", b);
            bounded(acc.reconstruction, gramReconstructionBound, "||A-USV^H||/||A||", b);
        }
        if (vendorResidual) {
            double normA2 = 0;
            for (std::size_t i = 0; i < mn; ++i) {
                const double x = std::abs(a[b * mn + i]);
                normA2 += x * x;
            }
            const double normA = std::sqrt(normA2);
            const double here = acc.reconstruction * normA, vendor = vendorResidual[b];
            if (b == 0 || !(vendor <= row.maxVendorResidual)) row.maxVendorResidual = vendor;
            bounded(std::abs(vendor - here), 0.1 * here + 4.0 * (m + n) * eps * normA,
                    "|h_R_nrmF - ||A-USV^H||_F measured here|", b);
        }
    }
    return row;
}

// The row's note: the measures, and what they were held to.
inline std::string svdAccuracyNote(const SvdRowAccuracy& row, const char* referenceName, SvdErrorModel model) {
    char text[400];
    std::snprintf(text, sizeof text, "recon %.1e, sigma vs %s %.1e, |UhU-I| %.1e%s, |VhV-I| %.1e, %s, worst error/bound %.2f%s",
                  row.reconstruction, referenceName, row.sigmaError, row.uOrthogonality,
                  model == SvdErrorModel::Gram ? " (not bounded)" : "", row.vOrthogonality, model == SvdErrorModel::Gram ? "Gram-model bounds" : "backward-stable bounds",
                  row.boundUse, row.passed() ? "" : " FAILED");
    std::string note = text;
    if (!std::isnan(row.maxVendorResidual)) {
        std::snprintf(text, sizeof text, ", h_R_nrmF max %.1e", row.maxVendorResidual);
        note += text;
    }
    if (!row.passed()) note += ": " + row.failure;
    return note;
}

} // namespace spyglass::bench
