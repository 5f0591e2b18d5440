#include "densitypicture.h"

#include <algorithm>
#include <cmath>

namespace spyglass::app {

namespace {
QRgb blend(QRgb a, QRgb b, double t) {
    auto mix = [t](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * t)); };
    return qRgb(mix(qRed(a), qRed(b)), mix(qGreen(a), qGreen(b)), mix(qBlue(a), qBlue(b)));
}
} // namespace

QImage densityToImage(const DensityImage& density) {
    QImage image(std::max(density.width, 1), std::max(density.height, 1), QImage::Format_RGB32);
    image.fill(Qt::white);
    if (density.width <= 0 || density.height <= 0) return image;

    double maxDensity = 0;
    for (int y = 0; y < density.height; ++y)
        for (int x = 0; x < density.width; ++x) maxDensity = std::max(maxDensity, density.density(x, y));
    if (maxDensity <= 0) return image;

    // Even the sparsest occupied bin starts at a clearly visible light blue; the log spreads the
    // remaining range over six decades of relative density.
    const QRgb light = qRgb(158, 202, 225);
    const QRgb dark = qRgb(8, 48, 107);
    const double decades = 6.0;
    for (int y = 0; y < density.height; ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        for (int x = 0; x < density.width; ++x) {
            const std::size_t bin = static_cast<std::size_t>(y) * density.width + x;
            if (density.counts[bin] == 0) continue;
            const double relative = std::max(density.density(x, y) / maxDensity, 1e-300);
            const double t = std::clamp(1.0 + std::log10(relative) / decades, 0.0, 1.0);
            line[x] = blend(light, dark, t);
        }
    }
    return image;
}

} // namespace spyglass::app
