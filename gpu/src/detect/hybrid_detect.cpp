// Dense-region detection (method D, steps 1-3). The only file that sees OpenCV: the thumbnail mask
// goes in as a cv::Mat, plain DenseRegion values come out.
//
// What runs in parallel (DetectionOptions::threads; the result never depends on the count):
//  - the thumbnail: each thread bins its own band of pixel rows (hybrid_thumbnail.cpp);
//  - the mask and the picture: by pixel rows;
//  - the labelling: OpenCV's parallel version of the chosen algorithm (it is used when OpenCV may
//    run more than one thread; the labels are the serial ones);
//  - the refinement: one component at a time per thread, each into its own slot; the slots are then
//    read in label order, so candidates, verdicts and the overlap pass are those of one thread.
#include "core/hybrid_gallop.h"
#include "core/hybrid_pixeldivider.h"
#include "core/hybrid_threads.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/error.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace spyglass {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

using hybrid_detail::pollCancel;

// A label image (OpenCV's for the thumbnail, our own for a local picture), read-only.
struct LabelView {
    const std::int32_t* data;
    std::size_t stride;  // elements per line
    const std::int32_t* line(int y) const { return data + static_cast<std::size_t>(y) * stride; }
};

// A component in pixel space: its box and the pixels carrying its label.
struct Component {
    int label, x, y, w, h, area;
};

// Where pixels lie in the matrix: pixel (x, y) covers rows originRow + [y, y + 1) * scale and the
// columns likewise, clipped to [.., endRow) x [.., endCol).
struct PixelGrid {
    Index scale = 1, originRow = 0, originCol = 0, endRow = 0, endCol = 0;
};

// Jaccard index between the component's pixels and a shape drawn in the component's pixel box:
// how well the shape explains the component (1 = exactly).
double shapeAgreement(const LabelView& labels, const Component& c, const DenseRegion& shapeInPixels) {
    std::int64_t inside = 0, shapeCells = 0;
    for (int py = c.y; py < c.y + c.h; ++py) {
        const ColumnSpan s = shapeInPixels.span(py);
        shapeCells += s.size();
        const std::int32_t* line = labels.line(py);
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
DenseRegion fitBand(const LabelView& labels, const Component& c) {
    std::vector<int> histogram(static_cast<std::size_t>(c.w + c.h), 0);
    for (int py = c.y; py < c.y + c.h; ++py) {
        const std::int32_t* line = labels.line(py);
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

// Peels edge lines of the box [0, height) x [0, width) whose fill is not above minFill, the emptiest
// first, each judged against the box as it is at that moment.
struct Peel {
    Index top, bottom, left, right;
};
Peel peelEdges(const std::vector<Count>& rowOnes, const std::vector<Count>& colOnes, Peel box, double minFill) {
    while (box.top < box.bottom && box.left < box.right) {
        const double width = box.right - box.left, height = box.bottom - box.top;
        const double fills[4] = {rowOnes[box.top] / width, rowOnes[box.bottom - 1] / width, colOnes[box.left] / height,
                                 colOnes[box.right - 1] / height};
        const int worst = static_cast<int>(std::min_element(fills, fills + 4) - fills);
        if (fills[worst] > minFill) break;
        switch (worst) {
        case 0: ++box.top; break;
        case 1: --box.bottom; break;
        case 2: ++box.left; break;
        default: --box.right; break;
        }
    }
    return box;
}

// Trims edge rows and columns of a rectangle whose fill is not above minFill: the box came from whole
// pixels, grown by one pixel less a cell so that a block edge inside a pixel is not lost. Edge lines are
// peeled one at a time, the emptiest first, each judged against the box as it is at that moment: the
// grown margin is nearly empty and goes first, after which a block line's fill is its own. (Judging
// every line against the grown box instead dropped whole blocks under about 75 % fill when a block is
// only a few pixels wide: a 2048-wide block at 512 cells a pixel sits in a box about 3070 wide.)
// Counts are over the box at the start of a pass (a peeled margin holds few entries); the second pass
// recounts on the trimmed box. Only the first pass reads every entry of the box: the second pass's
// column counts are the first's less the peeled rows' entries, its row counts two binary searches.
void trimRectangle(const BinaryPattern& pattern, DenseRegion& r, double minFill) {
    const Index height = r.height(), width = r.width();
    std::vector<Count> rowOnes(static_cast<std::size_t>(height), 0), colOnes(static_cast<std::size_t>(width), 0);
    const Index* columns = pattern.colIndex.data();
    for (Index i = r.rowBegin; i < r.rowEnd; ++i) {
        const Index* first = columns + pattern.rowPtr[i];
        const Index* last = columns + pattern.rowPtr[i + 1];
        const Index* it = hybrid_detail::lowerBoundFromFront(first, last, r.colBegin);
        const Index* const start = it;
        Count* counts = colOnes.data() - r.colBegin;
        for (; it != last && *it < r.colEnd; ++it) ++counts[*it];
        rowOnes[i - r.rowBegin] = it - start;
    }
    const Peel first = peelEdges(rowOnes, colOnes, {0, height, 0, width}, minFill);
    if (first.top == 0 && first.bottom == height && first.left == 0 && first.right == width) return;
    if (first.top >= first.bottom || first.left >= first.right) {
        r.rowEnd = r.rowBegin;
        return;
    }
    // Second pass on the trimmed box: columns lose the entries of the peeled rows.
    const Index colBegin = r.colBegin + first.left, colEnd = r.colBegin + first.right;
    auto removeRow = [&](Index local) {
        const Index i = r.rowBegin + local;
        const Index* last = columns + pattern.rowPtr[i + 1];
        for (const Index* it = hybrid_detail::lowerBoundFromFront(columns + pattern.rowPtr[i], last, colBegin); it != last && *it < colEnd;
             ++it)
            --colOnes[*it - r.colBegin];
    };
    for (Index local = 0; local < first.top; ++local) removeRow(local);
    for (Index local = first.bottom; local < height; ++local) removeRow(local);
    for (Index local = first.top; local < first.bottom; ++local) {
        const Index i = r.rowBegin + local;
        const Index* begin = columns + pattern.rowPtr[i];
        const Index* last = columns + pattern.rowPtr[i + 1];
        const Index* from = hybrid_detail::lowerBoundFromFront(begin, last, colBegin);
        rowOnes[local] = hybrid_detail::lowerBoundFromBack(from, last, colEnd) - from;
    }
    const Peel second = peelEdges(rowOnes, colOnes, first, minFill);
    if (second.top >= second.bottom || second.left >= second.right) {
        r.rowEnd = r.rowBegin;
        return;
    }
    const Index rowBegin = r.rowBegin, oldColBegin = r.colBegin;
    r.rowEnd = rowBegin + second.bottom, r.rowBegin = rowBegin + second.top;
    r.colEnd = oldColBegin + second.right, r.colBegin = oldColBegin + second.left;
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

DenseRegion toMatrix(const DenseRegion& inPixels, const PixelGrid& grid) {
    const Index cpp = grid.scale;
    DenseRegion r = inPixels;
    r.rowBegin = grid.originRow + inPixels.rowBegin * cpp;
    r.colBegin = grid.originCol + inPixels.colBegin * cpp;
    r.rowEnd = static_cast<Index>(std::min<std::int64_t>(grid.endRow, grid.originRow + static_cast<std::int64_t>(inPixels.rowEnd) * cpp));
    r.colEnd = static_cast<Index>(std::min<std::int64_t>(grid.endCol, grid.originCol + static_cast<std::int64_t>(inPixels.colEnd) * cpp));
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

// What one component (or one piece of it, on a finer local picture) became.
struct Fit {
    ComponentVerdict verdict = ComponentVerdict::NoShape;
    std::string reason;  // only when the picture is kept
    DenseRegion region;  // verdict Kept
};

// Classifies a component by how well each shape explains its pixels, maps the shapes to the matrix
// best first, fits them (rectangles trimmed, bands narrowed) and keeps the first whose fill is above
// minFill.
Fit fitComponent(const BinaryPattern& pattern, const LabelView& labels, const Component& c, const PixelGrid& grid,
                 const DetectionOptions& options) {
    const bool explain = options.keepPicture;
    Fit fit;
    // The fill ratio (set pixels / bounding box) is the rectangle's agreement; triangles (each
    // corner) and the fitted band are scored the same way, and the best-agreeing shape is tried
    // first. A rectangle wins near-ties: a band as wide as its box is a rectangle.
    std::vector<std::pair<double, DenseRegion>> scored;
    scored.push_back({static_cast<double>(c.area) / (static_cast<double>(c.w) * c.h) + 0.02, pixelBox(c)});
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
    bool fillTooLow = false;
    double bestFill = 0;
    const Index cpp = grid.scale;
    for (const DenseRegion& shape : tries) {
        DenseRegion region = toMatrix(shape, grid);
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
            fit.verdict = ComponentVerdict::TooSmall;
            if (explain)
                fit.reason = std::string(toString(region.shape)) + " of " + std::to_string(region.cells()) + " cells < " +
                             std::to_string(options.minRegionCells);
            return fit;
        }
        region.ones = countRegionOnes(pattern, region);
        if (region.fill() <= options.minFill) {
            fillTooLow = true;
            bestFill = std::max(bestFill, region.fill());
            continue;
        }
        fit.verdict = ComponentVerdict::Kept;
        fit.region = region;
        if (explain)
            fit.reason = std::string(toString(region.shape)) +
                         (region.shape == RegionShape::Triangle ? std::string(" ") + toString(region.corner) : "") + ", fill " +
                         fillText(region.fill()) + " > " + fillText(options.minFill);
        return fit;
    }
    fit.verdict = fillTooLow ? ComponentVerdict::FillTooLow : ComponentVerdict::NoShape;
    if (explain) {
        if (fillTooLow) fit.reason = "best fill " + fillText(bestFill) + " <= " + fillText(options.minFill);
        else if (tries.empty())
            fit.reason = "best shape agreement " + fillText(scored.front().first) + " < " + fillText(options.minShapeAgreement);
        else fit.reason = "trimmed away: no row or column of its box is more than minimum fill full";
    }
    return fit;
}

// A finer picture of one component's surroundings: at the thumbnail's resolution a pixel can be a
// fifth of a shape, so a triangle's or band's edges are off by most of a pixel (which costs more than
// the fill margin of a shape filled 50-60 %) and shapes closer than a pixel share one component. The
// box (the component's pixels grown by one pixel) is binned again at about kLocalSide pixels on its
// longer side, thresholded the same way and labelled (8-connected, labels in raster order of their
// first pixel); each piece is then fitted like a component of the thumbnail.
constexpr Index kLocalSide = 256;
constexpr Index kLocalRowsPerPixel = 4;
constexpr double kClearRectangle = 0.85;  // set pixels / box from which a component is taken for a rectangle

struct LocalPicture {
    PixelGrid grid;
    int width = 0, height = 0;
    std::vector<std::int32_t> labels;
    std::vector<Component> components;  // in label order
};

LocalPicture localPicture(const BinaryPattern& pattern, Index rowBegin, Index rowEnd, Index colBegin, Index colEnd, Index scale,
                          double pixelThreshold) {
    LocalPicture local;
    local.grid = {scale, rowBegin, colBegin, rowEnd, colEnd};
    local.width = static_cast<int>((colEnd - colBegin + scale - 1) / scale);
    local.height = static_cast<int>((rowEnd - rowBegin + scale - 1) / scale);
    const std::size_t w = static_cast<std::size_t>(local.width);
    std::vector<std::uint32_t> counts(w * static_cast<std::size_t>(local.height), 0);
    const hybrid_detail::PixelDivider toPixel(static_cast<std::uint64_t>(scale));
    const Index* columns = pattern.colIndex.data();
    // Every kLocalRowStep-th row of a pixel is read (at least kLocalRowsPerPixel of them): the
    // picture only places shapes to within a pixel, the exact fit that follows reads every row.
    const Index step = std::max<Index>(1, scale / kLocalRowsPerPixel);
    for (Index i = rowBegin; i < rowEnd; i += step) {
        std::uint32_t* line = counts.data() + toPixel(static_cast<std::uint32_t>(i - rowBegin)) * w;
        const Index* last = columns + pattern.rowPtr[i + 1];
        // Pixel by pixel: a pixel's entries counted as one run (sorted columns).
        for (const Index* it = hybrid_detail::lowerBoundFromFront(columns + pattern.rowPtr[i], last, colBegin); it != last && *it < colEnd;) {
            const std::uint32_t pixel = toPixel(static_cast<std::uint32_t>(*it - colBegin));
            const Index limit = static_cast<Index>(std::min<std::int64_t>(colEnd, colBegin + (static_cast<std::int64_t>(pixel) + 1) * scale));
            const Index* run = it + 1;
            while (run != last && *run < limit) ++run;
            line[pixel] += static_cast<std::uint32_t>(run - it);
            it = run;
        }
    }
    local.labels.assign(counts.size(), 0);
    std::vector<std::uint8_t> set(counts.size(), 0);
    for (int y = 0; y < local.height; ++y) {
        // Rows of this pixel line that were read.
        const Index first = static_cast<Index>(y) * scale, end = std::min<Index>(rowEnd - rowBegin, first + scale);
        const double h = static_cast<double>((end - 1) / step - (first + step - 1) / step + 1);
        for (int x = 0; x < local.width; ++x) {
            const double cells = h * std::min<double>(scale, colEnd - (colBegin + static_cast<double>(x) * scale));
            const std::size_t p = static_cast<std::size_t>(y) * w + static_cast<std::size_t>(x);
            set[p] = cells > 0 && counts[p] / cells >= pixelThreshold;  // a last line may hold no row read
        }
    }
    std::vector<std::size_t> stack;
    for (int y = 0; y < local.height; ++y)
        for (int x = 0; x < local.width; ++x) {
            const std::size_t p = static_cast<std::size_t>(y) * w + static_cast<std::size_t>(x);
            if (!set[p] || local.labels[p]) continue;
            Component c{static_cast<int>(local.components.size()) + 1, x, y, 0, 0, 0};
            int x0 = x, x1 = x, y0 = y, y1 = y;
            local.labels[p] = c.label;
            stack.assign(1, p);
            while (!stack.empty()) {
                const std::size_t q = stack.back();
                stack.pop_back();
                const int qy = static_cast<int>(q / w), qx = static_cast<int>(q % w);
                ++c.area;
                x0 = std::min(x0, qx), x1 = std::max(x1, qx), y0 = std::min(y0, qy), y1 = std::max(y1, qy);
                for (int ny = std::max(0, qy - 1); ny <= std::min(local.height - 1, qy + 1); ++ny)
                    for (int nx = std::max(0, qx - 1); nx <= std::min(local.width - 1, qx + 1); ++nx) {
                        const std::size_t n = static_cast<std::size_t>(ny) * w + static_cast<std::size_t>(nx);
                        if (set[n] && !local.labels[n]) {
                            local.labels[n] = c.label;
                            stack.push_back(n);
                        }
                    }
            }
            c.x = x0, c.y = y0, c.w = x1 - x0 + 1, c.h = y1 - y0 + 1;
            local.components.push_back(c);
        }
    return local;
}

// Everything one thumbnail component became: its verdict and the candidate regions it gave.
struct Outcome {
    ComponentVerdict verdict = ComponentVerdict::NoShape;
    std::string reason;
    std::vector<DenseRegion> candidates;
};

Outcome refineComponent(const BinaryPattern& pattern, const LabelView& labels, const Component& c, Index cpp,
                        const DetectionOptions& options, bool faint) {
    Outcome outcome;
    if (c.area < options.minComponentPixels) {
        outcome.verdict = ComponentVerdict::TooSmall;
        if (options.keepPicture)
            outcome.reason = std::to_string(c.area) + " pixels < " + std::to_string(options.minComponentPixels);
        return outcome;
    }
    const PixelGrid thumbnailGrid{cpp, 0, 0, pattern.rows, pattern.cols};
    // The component's pixels grown by one pixel, in matrix cells.
    const Index rowBegin = static_cast<Index>(std::max<std::int64_t>(0, std::int64_t(c.y - 1) * cpp));
    const Index colBegin = static_cast<Index>(std::max<std::int64_t>(0, std::int64_t(c.x - 1) * cpp));
    const Index rowEnd = static_cast<Index>(std::min<std::int64_t>(pattern.rows, std::int64_t(c.y + c.h + 1) * cpp));
    const Index colEnd = static_cast<Index>(std::min<std::int64_t>(pattern.cols, std::int64_t(c.x + c.w + 1) * cpp));
    const Index longer = std::max(rowEnd - rowBegin, colEnd - colBegin);
    const Index scale = std::max<Index>(1, (longer + kLocalSide - 1) / kLocalSide);
    // A component that fills its box is a rectangle whose exact trim (one pass over its box) finds
    // its edges to the cell: a local picture would only read the box once more.
    const bool clearRectangle =
        c.w >= 3 && c.h >= 3 && static_cast<double>(c.area) >= kClearRectangle * (static_cast<double>(c.w) * c.h);
    if (2 * scale > cpp || (clearRectangle && !faint)) {  // the thumbnail is already fine enough
        if (faint) {  // its pixels are under the threshold: only a finer picture can show a shape in it
            outcome.verdict = ComponentVerdict::NoShape;
            if (options.keepPicture) outcome.reason = "faint: pixels under the threshold and no finer picture to look at";
            return outcome;
        }
        Fit fit = fitComponent(pattern, labels, c, thumbnailGrid, options);
        outcome.verdict = fit.verdict;
        outcome.reason = std::move(fit.reason);
        if (fit.verdict == ComponentVerdict::Kept) outcome.candidates.push_back(fit.region);
        return outcome;
    }
    const LocalPicture local = localPicture(pattern, rowBegin, rowEnd, colBegin, colEnd, scale, options.pixelThreshold);
    const LabelView view{local.labels.data(), static_cast<std::size_t>(local.width)};
    // Pieces largest first; specks (fewer pixels than a thumbnail component needs) are left out.
    const int minArea = std::max(1, options.minComponentPixels);
    std::vector<const Component*> pieces;
    for (const Component& piece : local.components)
        if (piece.area >= minArea) pieces.push_back(&piece);
    std::stable_sort(pieces.begin(), pieces.end(), [](const Component* a, const Component* b) { return a->area > b->area; });
    bool first = true;
    for (const Component* piece : pieces) {
        Fit fit = fitComponent(pattern, view, *piece, local.grid, options);
        if (fit.verdict == ComponentVerdict::Kept) {
            if (outcome.candidates.empty()) {
                outcome.verdict = ComponentVerdict::Kept;
                outcome.reason = fit.reason;
            }
            outcome.candidates.push_back(fit.region);
        } else if (first) {  // the largest piece speaks for the component when nothing is kept
            outcome.verdict = fit.verdict;
            outcome.reason = fit.reason;
        }
        first = false;
    }
    if (pieces.empty()) {
        outcome.verdict = ComponentVerdict::TooSmall;
        if (options.keepPicture)
            outcome.reason = "no piece of " + std::to_string(minArea) + " pixels at " + std::to_string(scale) + " cells a pixel";
    } else if (options.keepPicture && outcome.candidates.size() > 1) {
        outcome.reason += " (+" + std::to_string(outcome.candidates.size() - 1) + " more shapes in its box)";
    }
    if (faint && options.keepPicture) outcome.reason = "faint (pixels under the threshold): " + outcome.reason;
    return outcome;
}

int cvAlgorithm(ComponentLabelling labelling) {
    switch (labelling) {
    case ComponentLabelling::Bbdt: return cv::CCL_BBDT;
    case ComponentLabelling::Sauf: return cv::CCL_SAUF;
    case ComponentLabelling::Spaghetti: break;
    }
    return cv::CCL_SPAGHETTI;
}

// OpenCV picks its parallel labelling when its own thread count (process-wide) is above one: set it
// to ours for the call. Calls are serialised so that two detections do not fight over the setting.
int labelComponents(const cv::Mat& mask, cv::Mat& labels, cv::Mat& stats, std::size_t threads, ComponentLabelling labelling) {
    static std::mutex openCvThreads;
    const std::lock_guard<std::mutex> lock(openCvThreads);
    const int before = cv::getNumThreads();
    // More threads than cores only makes OpenCV's pool (TBB) warn: the labels are the same.
    const int wanted = static_cast<int>(std::min<std::size_t>(threads, std::max(1u, std::thread::hardware_concurrency())));
    if (before != wanted) cv::setNumThreads(wanted);
    cv::Mat centroids;
    int count = 0;
    try {
        count = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S, cvAlgorithm(labelling));
    } catch (...) {
        if (before != wanted) cv::setNumThreads(before);
        throw;
    }
    if (before != wanted) cv::setNumThreads(before);
    return count;
}

// Runs fn(y) for each of `lines` lines on the threads, in bands.
template <typename Fn>
void forEachLine(int lines, std::size_t threads, const Fn& fn) {
    const std::size_t n = static_cast<std::size_t>(std::max(0, lines));
    const std::size_t parts = std::max<std::size_t>(1, std::min(n, threads * 4));
    const std::vector<std::size_t> bands = parallel::evenBounds(n, parts);
    hybrid_detail::forEachItem(parts, threads, [&](std::size_t band) {
        for (std::size_t y = bands[band]; y < bands[band + 1]; ++y) fn(static_cast<int>(y));
    });
}

// The mask: 255 where a pixel's density reaches the threshold.
// The smallest count c with c / cells >= threshold, in the double arithmetic of
// PatternThumbnail::density (division is monotone in c): a pixel is set when its count reaches it,
// an integer comparison per pixel instead of a division.
std::uint64_t minimumCount(double cells, double threshold) {
    std::uint64_t low = 0, high = static_cast<std::uint64_t>(cells) + 1;  // cells / cells = 1 >= threshold
    while (low < high) {
        const std::uint64_t mid = low + (high - low) / 2;
        if (static_cast<double>(mid) / cells >= threshold) high = mid;
        else low = mid + 1;
    }
    return low;
}

// The mask (255 where a pixel's density reaches the threshold) and, when faint is given, the mask at
// a lower threshold too, in the same pass. Returns whether some pixel is faint but not set.
bool thresholdThumbnail(const PatternThumbnail& thumb, double pixelThreshold, std::size_t threads, cv::Mat& mask,
                        cv::Mat* faint = nullptr, double faintThreshold = 0) {
    mask.create(thumb.height, thumb.width, CV_8U);
    if (faint) faint->create(thumb.height, thumb.width, CV_8U);
    const double cpp = static_cast<double>(thumb.cellsPerPixel);
    const int lastX = thumb.width - 1;
    const double lastWidth = std::min<double>(cpp, thumb.cols - static_cast<double>(lastX) * cpp);
    std::atomic<bool> anyFaint{false};
    forEachLine(thumb.height, threads, [&](int y) {
        const double h = std::min<double>(cpp, thumb.rows - static_cast<double>(y) * cpp);
        const std::uint64_t full = minimumCount(h * cpp, pixelThreshold), last = minimumCount(h * lastWidth, pixelThreshold);
        const std::uint32_t* counts = thumb.counts.data() + static_cast<std::size_t>(y) * thumb.width;
        std::uint8_t* line = mask.ptr<std::uint8_t>(y);
        for (int x = 0; x < lastX; ++x) line[x] = counts[x] >= full ? 255 : 0;
        line[lastX] = counts[lastX] >= last ? 255 : 0;
        if (!faint) return;
        const std::uint64_t faintFull = minimumCount(h * cpp, faintThreshold), faintLast = minimumCount(h * lastWidth, faintThreshold);
        std::uint8_t* faintLine = faint->ptr<std::uint8_t>(y);
        bool some = false;
        for (int x = 0; x < lastX; ++x) {
            faintLine[x] = counts[x] >= faintFull ? 255 : 0;
            some |= faintLine[x] != line[x];
        }
        faintLine[lastX] = counts[lastX] >= faintLast ? 255 : 0;
        some |= faintLine[lastX] != line[lastX];
        if (some) anyFaint.store(true, std::memory_order_relaxed);
    });
    return anyFaint.load();
}

// Shapes narrower than a pixel (a band 0.7 pixels wide) fill no pixel to the threshold: they show
// as a faint trail. Pixels at half the threshold are labelled too; each such component holding no
// pixel of the mask is added after the mask's components (labels count on), for the finer local
// picture to judge at the real threshold. Only where pixels are large enough for local pictures.
constexpr Index kFaintMinCellsPerPixel = 8;
constexpr double kFaintFraction = 0.5;

void addFaintComponents(const PatternThumbnail& thumb, const cv::Mat& mask, const cv::Mat& faintMask, cv::Mat& labels,
                        std::vector<Component>& components, std::size_t threads, const DetectionOptions& options) {
    // Most faint pixels are the margins of the mask's components (a block edge half across a pixel):
    // when every faint pixel has a neighbour in a component big enough to refine, every faint
    // component holds one, and the second labelling is skipped.
    std::atomic<bool> loose{false};
    const int width = thumb.width, height = thumb.height;
    forEachLine(height, threads, [&](int y) {
        if (loose.load(std::memory_order_relaxed)) return;
        const std::uint8_t* f = faintMask.ptr<std::uint8_t>(y);
        const std::uint8_t* m = mask.ptr<std::uint8_t>(y);
        for (int x = 0; x < width; ++x) {
            if (!f[x] || m[x]) continue;
            bool held = false;
            for (int ny = std::max(0, y - 1); ny <= std::min(height - 1, y + 1) && !held; ++ny) {
                const int* l = labels.ptr<int>(ny);
                for (int nx = std::max(0, x - 1); nx <= std::min(width - 1, x + 1) && !held; ++nx)
                    held = l[nx] > 0 && components[static_cast<std::size_t>(l[nx] - 1)].area >= options.minComponentPixels;
            }
            if (!held) {
                loose.store(true, std::memory_order_relaxed);
                return;
            }
        }
    });
    if (!loose.load()) return;
    cv::Mat faintLabels, faintStats;
    const int faintCount = labelComponents(faintMask, faintLabels, faintStats, threads, options.labelling);
    if (faintCount <= 1) return;
    // Faint components that hold a component of the mask large enough to be refined are that
    // component's margin: not new. One holding only specks of the mask (a band's trail broken into
    // pieces of one or two pixels) takes their place.
    std::vector<std::uint8_t> touches(static_cast<std::size_t>(faintCount), 0);
    forEachLine(thumb.height, threads, [&](int y) {
        const std::uint8_t* m = mask.ptr<std::uint8_t>(y);
        const int* f = faintLabels.ptr<int>(y);
        const int* l = labels.ptr<int>(y);
        for (int x = 0; x < thumb.width; ++x)
            if (m[x] && f[x] && components[static_cast<std::size_t>(l[x] - 1)].area >= options.minComponentPixels)
                touches[static_cast<std::size_t>(f[x])] = 1;  // every writer writes 1
    });
    std::vector<int> newLabel(static_cast<std::size_t>(faintCount), 0);
    bool any = false;
    for (int label = 1; label < faintCount; ++label) {
        if (touches[static_cast<std::size_t>(label)]) continue;
        const int area = faintStats.at<int>(label, cv::CC_STAT_AREA);
        if (area < options.minComponentPixels) continue;  // specks: not worth a component
        const int next = static_cast<int>(components.size()) + 1;
        newLabel[static_cast<std::size_t>(label)] = next;
        components.push_back({next, faintStats.at<int>(label, cv::CC_STAT_LEFT), faintStats.at<int>(label, cv::CC_STAT_TOP),
                              faintStats.at<int>(label, cv::CC_STAT_WIDTH), faintStats.at<int>(label, cv::CC_STAT_HEIGHT), area});
        any = true;
    }
    if (!any) return;
    forEachLine(thumb.height, threads, [&](int y) {
        const int* f = faintLabels.ptr<int>(y);
        int* l = labels.ptr<int>(y);
        for (int x = 0; x < thumb.width; ++x)
            if (const int label = newLabel[static_cast<std::size_t>(f[x])]) l[x] = label;
    });
}

} // namespace

int countThumbnailComponents(const PatternThumbnail& thumbnail, double pixelThreshold, ComponentLabelling labelling, int threads) {
    if (thumbnail.width <= 0 || thumbnail.height <= 0) return 0;
    const std::size_t count = hybrid_detail::threadCount(threads);
    cv::Mat labels, stats;
    cv::Mat mask;
    thresholdThumbnail(thumbnail, pixelThreshold, count, mask);
    return std::max(0, labelComponents(mask, labels, stats, count, labelling) - 1);
}

DetectionResult detectDenseRegions(const BinaryPattern& pattern, const DetectionOptions& options) {
    if (!(options.minFill >= 0.0 && options.minFill < 1.0)) throw InputError("detection: fill threshold must be in [0, 1)");
    if (!(options.pixelThreshold > 0.0 && options.pixelThreshold <= 1.0))
        throw InputError("detection: pixel density threshold must be in (0, 1]");
    DetectionResult result;
    const std::size_t threads = hybrid_detail::threadCount(options.threads);
    result.threads = static_cast<int>(threads);
    if (pattern.rows == 0 || pattern.cols == 0) return result;
    const Index cpp = options.cellsPerPixel > 0 ? options.cellsPerPixel
                                                : autoCellsPerPixel(pattern.rows, pattern.cols, options.maxThumbnailSide);
    auto start = Clock::now();
    const PatternThumbnail thumb = renderPatternThumbnail(pattern, cpp, options.cancel, static_cast<int>(threads), options.binning);
    result.thumbnailWidth = thumb.width;
    result.thumbnailHeight = thumb.height;
    result.cellsPerPixel = cpp;
    result.thumbnailMs = msSince(start);
    if (options.progress) options.progress(0.5);

    start = Clock::now();
    cv::Mat mask, faintMask;
    const bool faint = cpp >= kFaintMinCellsPerPixel &&
                       thresholdThumbnail(thumb, options.pixelThreshold, threads, mask, &faintMask, options.pixelThreshold * kFaintFraction);
    if (cpp < kFaintMinCellsPerPixel) thresholdThumbnail(thumb, options.pixelThreshold, threads, mask);
    cv::Mat labels, stats;
    const int count = labelComponents(mask, labels, stats, threads, options.labelling);
    std::vector<Component> components;  // label i + 1 at [i]
    components.reserve(static_cast<std::size_t>(std::max(0, count - 1)));
    for (int label = 1; label < count; ++label)
        components.push_back({label, stats.at<int>(label, cv::CC_STAT_LEFT), stats.at<int>(label, cv::CC_STAT_TOP),
                              stats.at<int>(label, cv::CC_STAT_WIDTH), stats.at<int>(label, cv::CC_STAT_HEIGHT),
                              stats.at<int>(label, cv::CC_STAT_AREA)});
    const std::size_t strongComponents = components.size();
    if (faint) addFaintComponents(thumb, mask, faintMask, labels, components, threads, options);
    result.components = static_cast<int>(components.size());
    result.faintComponents = static_cast<int>(components.size() - strongComponents);
    result.componentsMs = msSince(start);
    pollCancel(options.cancel);
    DetectionPicture& picture = result.picture;
    if (options.keepPicture) {
        picture.width = thumb.width;
        picture.height = thumb.height;
        picture.cellsPerPixel = cpp;
        const std::size_t pixels = static_cast<std::size_t>(thumb.width) * thumb.height;
        picture.density.resize(pixels);
        picture.mask.resize(pixels);
        picture.labels.resize(pixels);
        forEachLine(thumb.height, threads, [&](int y) {
            const std::uint8_t* m = mask.ptr<std::uint8_t>(y);
            const int* l = labels.ptr<int>(y);
            for (int x = 0; x < thumb.width; ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * thumb.width + x;
                picture.density[i] = static_cast<float>(thumb.density(x, y));
                picture.mask[i] = m[x] ? 1 : 0;
                picture.labels[i] = l[x];
            }
        });
        picture.components.resize(static_cast<std::size_t>(result.components));
    }

    // Each component is refined on its own (the slow part: its entries are read again), into its own
    // slot; the slots are read in label order below.
    start = Clock::now();
    const LabelView labelView{labels.ptr<std::int32_t>(0), labels.step1()};
    const std::size_t componentCount = components.size();
    std::vector<Outcome> outcomes(componentCount);
    hybrid_detail::forEachItem(
        componentCount, threads,
        [&](std::size_t i) {
            pollCancel(options.cancel);
            outcomes[i] = refineComponent(pattern, labelView, components[i], cpp, options, i >= strongComponents);
        },
        [&](std::size_t finished) {
            if (options.progress && finished % 64 == 0)
                options.progress(0.5 + 0.4 * static_cast<double>(finished) / static_cast<double>(componentCount));
        });
    pollCancel(options.cancel);

    std::vector<DenseRegion> candidates;
    std::vector<int> candidateLabels;  // the component each candidate came from
    for (std::size_t i = 0; i < componentCount; ++i) {
        Outcome& outcome = outcomes[i];
        const int label = static_cast<int>(i) + 1;
        if (options.keepPicture) {
            const Component& c = components[i];
            ComponentInfo& info = picture.components[i];
            info.label = label, info.x = c.x, info.y = c.y, info.width = c.w, info.height = c.h, info.area = c.area;
            info.verdict = outcome.verdict;
            info.reason = std::move(outcome.reason);
        }
        switch (outcome.verdict) {
        case ComponentVerdict::TooSmall: ++result.droppedBySize; break;
        case ComponentVerdict::NoShape: ++result.droppedByShape; break;
        case ComponentVerdict::FillTooLow: ++result.droppedByFill; break;
        default: break;
        }
        for (const DenseRegion& region : outcome.candidates) {
            candidates.push_back(region);
            candidateLabels.push_back(label);
        }
    }

    // The densest-by-count regions win; a later region touching an accepted one is dropped.
    std::vector<std::size_t> order(candidates.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return candidates[a].ones > candidates[b].ones; });
    std::vector<bool> keptOne(componentCount + 1, false);
    for (const std::size_t index : order) {
        const DenseRegion& candidate = candidates[index];
        bool clash = false;
        for (const DenseRegion& kept : result.regions)
            if (regionsOverlap(kept, candidate)) {
                clash = true;
                break;
            }
        if (!clash) {
            result.regions.push_back(candidate);
            keptOne[static_cast<std::size_t>(candidateLabels[index])] = true;
        }
    }
    // A component whose every candidate touched a region with more ones is dropped by overlap (named
    // by its first candidate).
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const int label = candidateLabels[i];
        if (keptOne[static_cast<std::size_t>(label)]) continue;
        keptOne[static_cast<std::size_t>(label)] = true;  // counted once
        ++result.droppedByOverlap;
        if (options.keepPicture) {
            ComponentInfo& info = picture.components[static_cast<std::size_t>(label - 1)];
            info.verdict = ComponentVerdict::Overlap;
            info.reason = candidates[i].describe() + " overlaps a region with more ones";
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
