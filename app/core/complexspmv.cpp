#include "complexspmv.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace spyglass::app {

std::vector<std::complex<double>> seededComplexX(Index cols, unsigned seed) {
    std::vector<std::complex<double>> x(static_cast<std::size_t>(cols));
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (std::complex<double>& v : x) {
        const double re = uniform(random);  // named: the order of the two draws is fixed
        v = {re, uniform(random)};
    }
    return x;
}

double maxRelativeDifference(const std::vector<std::complex<double>>& y, const std::vector<std::complex<double>>& reference) {
    if (y.size() != reference.size()) return std::numeric_limits<double>::infinity();
    double scale = 0, worst = 0;
    for (const std::complex<double>& v : reference) scale = std::max(scale, std::abs(v));
    for (std::size_t i = 0; i < y.size(); ++i) {
        const double difference = std::abs(y[i] - reference[i]);
        worst = std::isnan(difference) ? std::numeric_limits<double>::infinity() : std::max(worst, difference);
    }
    if (!std::isfinite(worst)) return worst;
    return scale > 0 ? worst / scale : worst;
}

} // namespace spyglass::app
