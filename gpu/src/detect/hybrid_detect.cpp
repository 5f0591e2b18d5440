// Dense-region detection (method D, steps 1-3). The only file that sees OpenCV: the thumbnail mask
// goes in as a cv::Mat, plain DenseRegion values come out.
#include "spyglass/hybrid_regions.h"
#include "spyglass/error.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <chrono>

namespace spyglass {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void pollCancel(const DetectionOptions& options) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) throw CancelledError();
}

// A component in pixel space: its box and the pixels carrying its label.
struct Component {
    int label, x, y, w, h, area;
};

// Jaccard index between the component's pixels and a shape drawn in the component's pixel box:
// how well the shape explains the component (1 = exactly).
double shapeAgreement(const cv::Mat& labels, const Component& c, const DenseRegion& shapeInPixels) {
    std::int64_t inside = 0, shapeCells = 0;
    for (int py = c.y; py < c.y + c.h; ++py) {
        const ColumnSpan s = shapeInPixels.span(py);
        shapeCells += s.size();
        const int* line = labels.ptr<int>(py);
        for (int px = s.begin; px < s.end; ++px) inside += line[px] == c.label;
    }
    const double unionCells = static_cast<double>(c.area) + shapeCells - inside;
    return unionCells > 0 ? inside / unionCells : 0.0;
}

DenseRegion pixelBox(const Component& c) {
    DenseRegion r;
    r.rowBegin = c.y, r.rowEnd = c.y + c.h, r.colBegin = c.x, r.colEnd = c.x + c.w;
    return r;
}

// The band of local pixel offsets (x - x0) - (y - y0) holding the component, tails of 2.5 % each
// side left out so that a stray pixel does not widen it.
DenseRegion fitBand(const cv::Mat& labels, const Component& c) {
    std::vector<int> histogram(static_cast<std::size_t>(c.w + c.h), 0);
    for (int py = c.y; py < c.y + c.h; ++py) {
        const int* line = labels.ptr<int>(py);
        for (int px = c.x; px < c.x + c.w; ++px)
            if (line[px] == c.label) ++histogram[(px - c.x) - (py - c.y) + c.h - 1];
    }
    const int tail = c.area / 40;
    int low = 0, high = static_cast<int>(histogram.size()) - 1, seen = 0;
    while (low < high && seen + histogram[low] <= tail) seen += histogram[low++];
    seen = 0;
    while (high > low && seen + histogram[high] <= tail) seen += histogram[high--];
    DenseRegion band = pixelBox(c);
    band.shape = RegionShape::Band;
    band.bandLow = low - (c.h - 1);
    band.bandHigh = high - (c.h - 1);
    return band;
}

// Trims edge rows and columns of a rectangle whose fill is not above minFill: the box came from whole
// pixels, grown by one pixel less a cell so that a block edge inside a pixel is not lost. Edge lines are
// peeled one at a time, the emptiest first, each judged against the box as it is at that moment: the
// grown margin is nearly empty and goes first, after which a block line's fill is its own. (Judging
// every line against the grown box instead dropped whole blocks under about 75 % fill when a block is
// only a few pixels wide: a 2048-wide block at 512 cells a pixel sits in a box about 3070 wide.)
// Counts are over the box at the start of a pass (a peeled margin holds few entries); the second pass
// recounts on the trimmed box.
void trimRectangle(const BinaryPattern& pattern, DenseRegion& r, double minFill) {
    for (int pass = 0; pass < 2; ++pass) {
        std::vector<Count> rowOnes(static_cast<std::size_t>(r.height()), 0), colOnes(static_cast<std::size_t>(r.width()), 0);
        for (Index i = r.rowBegin; i < r.rowEnd; ++i) {
            const auto first = pattern.colIndex.begin() + pattern.rowPtr[i], last = pattern.colIndex.begin() + pattern.rowPtr[i + 1];
            for (auto it = std::lower_bound(first, last, r.colBegin); it != last && *it < r.colEnd; ++it) {
                ++rowOnes[i - r.rowBegin];
                ++colOnes[*it - r.colBegin];
            }
        }
        Index top = 0, bottom = r.height(), left = 0, right = r.width();
        while (top < bottom && left < right) {
            const double width = right - left, height = bottom - top;
            const double fills[4] = {rowOnes[top] / width, rowOnes[bottom - 1] / width, colOnes[left] / height,
                                     colOnes[right - 1] / height};
            const int worst = static_cast<int>(std::min_element(fills, fills + 4) - fills);
            if (fills[worst] > minFill) break;
            switch (worst) {
            case 0: ++top; break;
            case 1: --bottom; break;
            case 2: ++left; break;
            default: --right; break;
            }
        }
        if (top == 0 && bottom == r.height() && left == 0 && right == r.width()) return;
        if (top >= bottom || left >= right) {
            r.rowEnd = r.rowBegin;
            return;
        }
        r.rowEnd = r.rowBegin + bottom, r.rowBegin += top;
        r.colEnd = r.colBegin + right, r.colBegin += left;
    }
}

// Narrows a band to the diagonals that are themselves more than minFill full, counted exactly.
void trimBand(const BinaryPattern& pattern, DenseRegion& band, double minFill) {
    const Index low = band.bandLow, high = band.bandHigh;
    std::vector<Count> ones(static_cast<std::size_t>(high - low + 1), 0), cells(ones.size(), 0);
    for (Index i = band.rowBegin; i < band.rowEnd; ++i) {
        const ColumnSpan s = band.span(i);
        if (!s.size()) continue;
        const Index base = (s.begin - band.colBegin) - (i - band.rowBegin) - low;
        for (Index d = 0; d < s.size(); ++d) ++cells[base + d];
        const auto first = pattern.colIndex.begin() + pattern.rowPtr[i], last = pattern.colIndex.begin() + pattern.rowPtr[i + 1];
        for (auto it = std::lower_bound(first, last, s.begin); it != last && *it < s.end; ++it) ++ones[base + (*it - s.begin)];
    }
    Index a = 0, b = high - low;
    while (a < b && ones[a] <= minFill * cells[a]) ++a;
    while (b > a && ones[b] <= minFill * cells[b]) --b;
    band.bandLow = low + a;
    band.bandHigh = low + b;
}

DenseRegion toMatrix(const DenseRegion& inPixels, Index cpp, Index rows, Index cols) {
    DenseRegion r = inPixels;
    r.rowBegin = inPixels.rowBegin * cpp;
    r.colBegin = inPixels.colBegin * cpp;
    r.rowEnd = static_cast<Index>(std::min<std::int64_t>(rows, static_cast<std::int64_t>(inPixels.rowEnd) * cpp));
    r.colEnd = static_cast<Index>(std::min<std::int64_t>(cols, static_cast<std::int64_t>(inPixels.colEnd) * cpp));
    if (r.shape == RegionShape::Band) {
        // A pixel offset d covers matrix offsets within one pixel of d * cpp.
        r.bandLow = inPixels.bandLow * cpp - (cpp - 1);
        r.bandHigh = inPixels.bandHigh * cpp + (cpp - 1);
    }
    return r;
}

std::string fillText(double fill) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", fill);
    return text;
}

} // namespace

DetectionResult detectDenseRegions(const BinaryPattern& pattern, const DetectionOptions& options) {
    if (!(options.minFill >= 0.0 && options.minFill < 1.0)) throw InputError("detection: fill threshold must be in [0, 1)");
    if (!(options.pixelThreshold > 0.0 && options.pixelThreshold <= 1.0))
        throw InputError("detection: pixel density threshold must be in (0, 1]");
    DetectionResult result;
    if (pattern.rows == 0 || pattern.cols == 0) return result;
    const Index cpp = options.cellsPerPixel > 0 ? options.cellsPerPixel
                                                : autoCellsPerPixel(pattern.rows, pattern.cols, options.maxThumbnailSide);
    auto start = Clock::now();
    const PatternThumbnail thumb = renderPatternThumbnail(pattern, cpp, options.cancel);
    result.thumbnailWidth = thumb.width;
    result.thumbnailHeight = thumb.height;
    result.cellsPerPixel = cpp;
    result.thumbnailMs = msSince(start);
    if (options.progress) options.progress(0.5);

    start = Clock::now();
    cv::Mat mask(thumb.height, thumb.width, CV_8U);
    for (int y = 0; y < thumb.height; ++y) {
        std::uint8_t* line = mask.ptr<std::uint8_t>(y);
        for (int x = 0; x < thumb.width; ++x) line[x] = thumb.density(x, y) >= options.pixelThreshold ? 255 : 0;
    }
    cv::Mat labels, stats, centroids;
    const int count = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
    result.components = std::max(0, count - 1);
    result.componentsMs = msSince(start);
    pollCancel(options);
    DetectionPicture& picture = result.picture;
    if (options.keepPicture) {
        picture.width = thumb.width;
        picture.height = thumb.height;
        picture.cellsPerPixel = cpp;
        const std::size_t pixels = static_cast<std::size_t>(thumb.width) * thumb.height;
        picture.density.resize(pixels);
        picture.mask.resize(pixels);
        picture.labels.resize(pixels);
        for (int y = 0; y < thumb.height; ++y) {
            const std::uint8_t* m = mask.ptr<std::uint8_t>(y);
            const int* l = labels.ptr<int>(y);
            for (int x = 0; x < thumb.width; ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * thumb.width + x;
                picture.density[i] = static_cast<float>(thumb.density(x, y));
                picture.mask[i] = m[x] ? 1 : 0;
                picture.labels[i] = l[x];
            }
        }
        picture.components.resize(static_cast<std::size_t>(result.components));
    }
    // Records a component's fate when the picture is kept.
    auto judge = [&](int label, ComponentVerdict verdict, const std::string& reason) {
        if (!options.keepPicture) return;
        ComponentInfo& info = picture.components[static_cast<std::size_t>(label - 1)];
        info.verdict = verdict;
        info.reason = reason;
    };
    std::vector<int> candidateLabels;  // the component each candidate came from

    start = Clock::now();
    std::vector<DenseRegion> candidates;
    for (int label = 1; label < count; ++label) {
        if (options.progress && label % 64 == 0) options.progress(0.5 + 0.4 * label / count);
        pollCancel(options);
        const Component c{label, stats.at<int>(label, cv::CC_STAT_LEFT), stats.at<int>(label, cv::CC_STAT_TOP),
                          stats.at<int>(label, cv::CC_STAT_WIDTH), stats.at<int>(label, cv::CC_STAT_HEIGHT),
                          stats.at<int>(label, cv::CC_STAT_AREA)};
        if (options.keepPicture) {
            ComponentInfo& info = picture.components[static_cast<std::size_t>(label - 1)];
            info.label = label, info.x = c.x, info.y = c.y, info.width = c.w, info.height = c.h, info.area = c.area;
        }
        if (c.area < options.minComponentPixels) {
            ++result.droppedBySize;
            judge(label, ComponentVerdict::TooSmall,
                  std::to_string(c.area) + " pixels < " + std::to_string(options.minComponentPixels));
            continue;
        }
        // The fill ratio (set pixels / bounding box) is the rectangle's agreement; triangles (each
        // corner) and the fitted band are scored the same way, and the best-agreeing shape is tried
        // first. A rectangle wins near-ties: a band as wide as its box is a rectangle.
        std::vector<std::pair<double, DenseRegion>> scored;
        const DenseRegion rect = pixelBox(c);
        scored.push_back({static_cast<double>(c.area) / (static_cast<double>(c.w) * c.h) + 0.02, rect});
        for (int corner = 0; corner < 4; ++corner) {
            DenseRegion t = pixelBox(c);
            t.shape = RegionShape::Triangle;
            t.corner = static_cast<TriangleCorner>(corner);
            scored.push_back({shapeAgreement(labels, c, t), t});
        }
        const DenseRegion band = fitBand(labels, c);
        if (band.bandWidth() < std::min(c.w, c.h)) scored.push_back({shapeAgreement(labels, c, band), band});
        std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        std::vector<DenseRegion> tries;
        for (const auto& [agreement, shape] : scored)
            if (agreement >= options.minShapeAgreement) tries.push_back(shape);
        bool placed = false, fillTooLow = false;
        double bestFill = 0;
        for (const DenseRegion& shape : tries) {
            DenseRegion region = toMatrix(shape, cpp, pattern.rows, pattern.cols);
            if (region.shape == RegionShape::Rectangle) {
                region.rowBegin = std::max<Index>(0, region.rowBegin - (cpp - 1));
                region.colBegin = std::max<Index>(0, region.colBegin - (cpp - 1));
                region.rowEnd = std::min<Index>(pattern.rows, region.rowEnd + (cpp - 1));
                region.colEnd = std::min<Index>(pattern.cols, region.colEnd + (cpp - 1));
                trimRectangle(pattern, region, options.minFill);
                if (region.rowEnd <= region.rowBegin) continue;
            } else if (region.shape == RegionShape::Band) {
                trimBand(pattern, region, options.minFill);
            }
            if (region.cells() < options.minRegionCells) {
                ++result.droppedBySize;
                judge(label, ComponentVerdict::TooSmall,
                      std::string(toString(region.shape)) + " of " + std::to_string(region.cells()) + " cells < " +
                          std::to_string(options.minRegionCells));
                placed = true;
                break;
            }
            region.ones = countRegionOnes(pattern, region);
            if (region.fill() <= options.minFill) {
                fillTooLow = true;
                bestFill = std::max(bestFill, region.fill());
                continue;
            }
            candidates.push_back(region);
            candidateLabels.push_back(label);
            judge(label, ComponentVerdict::Kept,
                  std::string(toString(region.shape)) + (region.shape == RegionShape::Triangle ? std::string(" ") + toString(region.corner) : "") +
                      ", fill " + fillText(region.fill()) + " > " + fillText(options.minFill));
            placed = true;
            break;
        }
        if (!placed) {
            ++(fillTooLow ? result.droppedByFill : result.droppedByShape);
            if (fillTooLow)
                judge(label, ComponentVerdict::FillTooLow, "best fill " + fillText(bestFill) + " <= " + fillText(options.minFill));
            else if (tries.empty())
                judge(label, ComponentVerdict::NoShape,
                      "best shape agreement " + fillText(scored.front().first) + " < " + fillText(options.minShapeAgreement));
            else
                judge(label, ComponentVerdict::NoShape, "trimmed away: no row or column of its box is more than minimum fill full");
        }
    }

    // The densest-by-count regions win; a later region touching an accepted one is dropped.
    std::vector<std::size_t> order(candidates.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return candidates[a].ones > candidates[b].ones; });
    for (const std::size_t index : order) {
        const DenseRegion& candidate = candidates[index];
        bool clash = false;
        for (const DenseRegion& kept : result.regions)
            if (regionsOverlap(kept, candidate)) {
                clash = true;
                break;
            }
        if (clash) {
            ++result.droppedByOverlap;
            judge(candidateLabels[index], ComponentVerdict::Overlap, candidate.describe() + " overlaps a region with more ones");
        } else {
            result.regions.push_back(candidate);
        }
    }
    std::sort(result.regions.begin(), result.regions.end(), [](const DenseRegion& a, const DenseRegion& b) {
        return a.rowBegin != b.rowBegin ? a.rowBegin < b.rowBegin : a.colBegin < b.colBegin;
    });
    result.refineMs = msSince(start);
    if (options.progress) options.progress(1.0);
    return result;
}

} // namespace spyglass
