#include "hybriddetectionlayers.h"

#include <QCoreApplication>

#include <algorithm>

namespace spyglass::widgets {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("DetectionLayers", text); }

QImage blank(const DetectionPicture& picture) {
    QImage image(std::max(picture.width, 1), std::max(picture.height, 1), QImage::Format_ARGB32);
    image.fill(Qt::white);
    return image;
}
} // namespace

QImage detectionDensityImage(const DetectionPicture& picture) {
    QImage image = blank(picture);
    for (int y = 0; y < picture.height; ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        for (int x = 0; x < picture.width; ++x) {
            const float d = std::clamp(picture.density[static_cast<std::size_t>(y) * picture.width + x], 0.0f, 1.0f);
            // White (empty) to dark blue (full), as the spy picture shades density.
            line[x] = qRgb(int(255 - 225 * d), int(255 - 200 * d), int(255 - 95 * d));
        }
    }
    return image;
}

QImage detectionMaskImage(const DetectionPicture& picture) {
    QImage image = blank(picture);
    for (int y = 0; y < picture.height; ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        for (int x = 0; x < picture.width; ++x)
            if (picture.mask[static_cast<std::size_t>(y) * picture.width + x]) line[x] = qRgb(20, 20, 20);
    }
    return image;
}

QColor componentColor(const ComponentInfo& component) {
    // Golden-ratio hue steps keep neighbouring labels apart.
    const int hue = static_cast<int>(component.label * 137.508) % 360;
    QColor color = QColor::fromHsv(hue, 200, 210);
    if (component.verdict != ComponentVerdict::Kept) color = QColor::fromHsv(hue, 60, 225);
    return color;
}

QImage detectionComponentsImage(const DetectionPicture& picture) {
    QImage image = blank(picture);
    std::vector<QRgb> colors(picture.components.size() + 1, qRgb(255, 255, 255));
    for (const ComponentInfo& c : picture.components)
        if (c.label > 0 && static_cast<std::size_t>(c.label) < colors.size()) colors[c.label] = componentColor(c).rgb();
    for (int y = 0; y < picture.height; ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        for (int x = 0; x < picture.width; ++x) {
            const std::int32_t label = picture.labels[static_cast<std::size_t>(y) * picture.width + x];
            if (label > 0 && static_cast<std::size_t>(label) < colors.size()) line[x] = colors[label];
        }
    }
    return image;
}

QRectF detectionCells(const DetectionPicture& picture) {
    const double cpp = static_cast<double>(picture.cellsPerPixel);
    return QRectF(0, 0, picture.width * cpp, picture.height * cpp);
}

QString componentDetails(const ComponentInfo& c, Index cellsPerPixel) {
    const qint64 cpp = cellsPerPixel;
    return tr("<b>component %1: %2</b><br>%3<br>%4 pixels in a %5×%6 box; rows %7–%8, columns %9–%10")
        .arg(c.label)
        .arg(QString::fromLatin1(toString(c.verdict)))
        .arg(QString::fromStdString(c.reason).toHtmlEscaped())
        .arg(c.area)
        .arg(c.width)
        .arg(c.height)
        .arg(c.y * cpp + 1)
        .arg((c.y + c.height) * cpp)
        .arg(c.x * cpp + 1)
        .arg((c.x + c.width) * cpp);
}

std::vector<ComponentInfo> listedComponents(const DetectionPicture& picture, int maxComponents) {
    // Kept ones first (they are what the encoding stores), then the others largest first: a cap
    // then drops the smallest rejects, never a kept component (thousands of one-pixel components
    // used to come first and push kept ones past the cap, undrawn).
    std::vector<ComponentInfo> listed = picture.components;
    std::stable_sort(listed.begin(), listed.end(), [](const ComponentInfo& a, const ComponentInfo& b) {
        const bool keptA = a.verdict == ComponentVerdict::Kept, keptB = b.verdict == ComponentVerdict::Kept;
        if (keptA != keptB) return keptA;
        return a.area > b.area;
    });
    if (maxComponents >= 0 && listed.size() > std::size_t(maxComponents)) listed.resize(std::size_t(maxComponents));
    return listed;
}

QList<SpyOverlay> componentOverlays(const DetectionPicture& picture, int maxComponents) {
    QList<SpyOverlay> overlays;
    const double cpp = static_cast<double>(picture.cellsPerPixel);
    for (const ComponentInfo& c : listedComponents(picture, maxComponents)) {
        // The component's box in whole cells (its pixels' cells, edge pixels included).
        SpyOverlay o = rectangleOverlay(static_cast<Index>(c.y * cpp), static_cast<Index>((c.y + c.height) * cpp),
                                        static_cast<Index>(c.x * cpp), static_cast<Index>((c.x + c.width) * cpp));
        o.color = componentColor(c).darker(150);
        o.label = QStringLiteral("%1 %2").arg(c.label).arg(QString::fromLatin1(toString(c.verdict)));
        o.details = componentDetails(c, picture.cellsPerPixel);
        overlays << o;
    }
    return overlays;
}

} // namespace spyglass::widgets
