#pragma once
// Method D, steps 1-3: find dense regions of a binary matrix. A thumbnail of the pattern is
// thresholded, its connected components are classified by how much of their bounding box they fill
// (rectangle, triangle, diagonal band), mapped back to the matrix and kept when the exact fraction of
// ones inside the shape exceeds a threshold. Kept regions never overlap.
#include "spyglass/matrix.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace spyglass {

// A binary matrix as a pattern: sorted, duplicate-free column indices per row, no values (all 1).
struct BinaryPattern {
    Index rows = 0, cols = 0;
    std::vector<Count> rowPtr{0};  // rows + 1
    std::vector<Index> colIndex;
    Count nnz() const { return static_cast<Count>(colIndex.size()); }
    bool operator==(const BinaryPattern& other) const {
        return rows == other.rows && cols == other.cols && rowPtr == other.rowPtr && colIndex == other.colIndex;
    }
};

// The full (symmetry-expanded) pattern of a matrix whose values are all 1 (or pattern field).
// Throws InputError naming the first entry whose value is not 1, or complex data. Duplicates merge.
BinaryPattern binaryPatternFromMatrix(const Matrix& matrix);
// Pattern field, general symmetry, coordinate layout.
Matrix matrixFromBinaryPattern(const BinaryPattern& pattern);
// Builds a pattern from coordinates (any order, duplicates allowed); throws InputError on a range error.
BinaryPattern binaryPatternFromCoordinates(Index rows, Index cols, const std::vector<Index>& rowIndex,
                                           const std::vector<Index>& colIndex);

enum class RegionShape : std::uint8_t { Rectangle = 0, Triangle = 1, Band = 2 };
// The corner holding the triangle's right angle. LowerLeft is a lower triangle (diagonal included
// for a square), UpperRight an upper triangle; the other two are anti-triangles.
enum class TriangleCorner : std::uint8_t { LowerLeft = 0, UpperRight = 1, UpperLeft = 2, LowerRight = 3 };

const char* toString(RegionShape shape);
const char* toString(TriangleCorner corner);

struct ColumnSpan {  // half-open; empty when begin >= end
    Index begin = 0, end = 0;
    Index size() const { return end > begin ? end - begin : 0; }
};

// A dense region: a shape inside the half-open bounding box. Each row of every shape covers one
// contiguous run of columns, which is what lets SpMV use prefix sums of x.
struct DenseRegion {
    RegionShape shape = RegionShape::Rectangle;
    TriangleCorner corner = TriangleCorner::LowerLeft;  // Triangle only
    Index rowBegin = 0, rowEnd = 0, colBegin = 0, colEnd = 0;
    // Band only: the local offsets (j - colBegin) - (i - rowBegin) in [bandLow, bandHigh].
    Index bandLow = 0, bandHigh = 0;
    Count ones = 0;  // nonzeros of the matrix inside the shape (filled by countRegionOnes)

    Index height() const { return rowEnd - rowBegin; }
    Index width() const { return colEnd - colBegin; }
    Index bandWidth() const { return shape == RegionShape::Band ? bandHigh - bandLow + 1 : 0; }
    // The columns (absolute) the shape covers in absolute row `row`; empty outside the box.
    ColumnSpan span(Index row) const;
    Count cells() const;  // elements of the shape
    double fill() const { const Count c = cells(); return c > 0 ? static_cast<double>(ones) / c : 0.0; }
    std::string describe() const;  // "rectangle rows [0,10) cols [5,9) fill 0.83"
};

// True when some matrix element belongs to both shapes.
bool regionsOverlap(const DenseRegion& a, const DenseRegion& b);
// Exact count of the pattern's nonzeros inside the region's shape.
Count countRegionOnes(const BinaryPattern& pattern, const DenseRegion& region);
// Throws InputError when the box leaves the matrix, a band is empty or the shape has no cells.
void validateRegion(const DenseRegion& region, Index rows, Index cols);

// The thumbnail: the pattern binned into squares of cellsPerPixel x cellsPerPixel elements.
struct PatternThumbnail {
    int width = 0, height = 0;
    Index cellsPerPixel = 1;
    Index rows = 0, cols = 0;           // of the matrix
    std::vector<std::uint32_t> counts;  // height rows of width pixels
    // Nonzeros / elements covered by pixel (x, y); edge pixels cover fewer elements.
    double density(int x, int y) const;
};
// How the thumbnail's pass is split over threads. Both give the same counts; bench_hybrid times both
// and the default is the faster there.
enum class ThumbnailBinning : std::uint8_t {
    LineBands = 0,    // each thread bins its own band of pixel rows (balanced by nonzeros): no merge
    MergedRanges = 1  // each thread bins a row range into a private thumbnail; the copies are summed
};
const char* toString(ThumbnailBinning binning);

// One pass over the nonzeros on `threads` threads (0: every core); the counts never depend on the
// thread count or the binning. cancel (when set) is polled every few million entries.
PatternThumbnail renderPatternThumbnail(const BinaryPattern& pattern, Index cellsPerPixel,
                                        const std::atomic<bool>* cancel = nullptr, int threads = 0,
                                        ThumbnailBinning binning = ThumbnailBinning::LineBands);
// Cells per pixel so that the longer thumbnail side is at most maxSide pixels.
Index autoCellsPerPixel(Index rows, Index cols, int maxSide);

// OpenCV's connected-component labelling algorithm (8-connected). Both have a parallel version that
// OpenCV runs when more than one thread is allowed (DetectionOptions::threads); every choice gives
// the same labels. bench_hybrid times each; the default is the faster there.
enum class ComponentLabelling : std::uint8_t {
    Spaghetti = 0,  // cv::CCL_SPAGHETTI (Bolelli 2019), OpenCV's default
    Bbdt = 1,       // cv::CCL_BBDT (Grana 2010)
    Sauf = 2        // cv::CCL_SAUF (Wu 2009)
};
const char* toString(ComponentLabelling labelling);

struct DetectionOptions {
    Index cellsPerPixel = 0;      // 0: choose so the thumbnail's longer side is <= maxThumbnailSide
    int maxThumbnailSide = 2048;
    double pixelThreshold = 0.3;  // a pixel is "set" when this fraction of its elements are nonzero
    double minFill = 0.5;         // a region is kept when more than this fraction of its shape is ones
    int minComponentPixels = 4;   // smaller components are noise
    Count minRegionCells = 16;    // smaller regions save nothing over CSR
    // A component is classified by how well each shape explains its pixels (Jaccard index of the
    // component's pixels and the shape drawn in its box; for the rectangle this is the ratio of set
    // pixels to the bounding box). Shapes agreeing less than this are not tried.
    double minShapeAgreement = 0.5;
    bool keepPicture = false;     // fill DetectionResult::picture (what the detector saw, for display)
    // Threads for the thumbnail, the labelling and the per-component refinement: 0 = every core.
    // The result is the same for every count (tst_hybrid_parallel).
    int threads = 0;
    ComponentLabelling labelling = ComponentLabelling::Spaghetti;
    ThumbnailBinning binning = ThumbnailBinning::LineBands;
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(double fraction)> progress;
};

// What became of one connected component of the thresholded thumbnail, and why.
enum class ComponentVerdict : std::uint8_t {
    Kept,        // became a dense region
    TooSmall,    // fewer pixels than minComponentPixels, or its region has fewer than minRegionCells
    NoShape,     // no shape agrees with its pixels well enough (minShapeAgreement)
    FillTooLow,  // every agreeing shape, mapped to the matrix, is not more than minFill full
    Overlap      // a denser region already covers part of it
};
const char* toString(ComponentVerdict verdict);

struct ComponentInfo {
    int label = 0;                       // its value in DetectionPicture::labels
    int x = 0, y = 0, width = 0, height = 0, area = 0;  // pixel box and set pixels
    ComponentVerdict verdict = ComponentVerdict::NoShape;
    std::string reason;                  // one line: "rectangle, fill 0.93 > 0.50" / "best fill 0.31 <= 0.50" ...
};

// The detector's view at thumbnail resolution: one value per pixel, row by row (height x width).
struct DetectionPicture {
    int width = 0, height = 0;
    Index cellsPerPixel = 1;
    std::vector<float> density;           // nonzeros / elements of each pixel
    std::vector<std::uint8_t> mask;       // 1 where density >= pixelThreshold
    std::vector<std::int32_t> labels;     // 0: background, else the component's label
    std::vector<ComponentInfo> components; // in label order (components[i].label == i + 1)
};

struct DetectionResult {
    std::vector<DenseRegion> regions;  // kept, non-overlapping, ones counted exactly
    int thumbnailWidth = 0, thumbnailHeight = 0;
    Index cellsPerPixel = 1;
    int components = 0;             // connected components of the thresholded thumbnail, faint ones included
    int faintComponents = 0;        // of those, labelled at half the threshold (shapes narrower than a pixel)
    int droppedByShape = 0, droppedByFill = 0, droppedByOverlap = 0, droppedBySize = 0;
    double thumbnailMs = 0, componentsMs = 0, refineMs = 0;
    int threads = 1;                // threads the host work ran on
    DetectionPicture picture;       // only with DetectionOptions::keepPicture
};

// In target spyglass_detect (OpenCV). Throws CancelledError when cancelled.
DetectionResult detectDenseRegions(const BinaryPattern& pattern, const DetectionOptions& options = {});
// The components phase of detectDenseRegions alone (threshold the thumbnail, label it): what
// bench_hybrid times for each labelling algorithm and thread count. Returns the components found.
int countThumbnailComponents(const PatternThumbnail& thumbnail, double pixelThreshold, ComponentLabelling labelling,
                             int threads = 0);

} // namespace spyglass
