// Writes valid containers into the folder given as argv[1]: hybrid (one per region shape, plus a CSR
// fallback), valued hybrid (every shape, f64, f32, integer, fallback), segmented DIA (real, pattern, HDIA) and bit-flag (row-major with prefix counts,
// column-major, pattern, narrow 32-bit lines): starting points from which the container fuzzer
// mutates its way into the section and encoding checks. Built and run by scripts/fuzz; the outputs
// are not committed.
#include "spyglass/bitflag.h"
#include "spyglass/container.h"
#include "spyglass/convert.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"
#include "spyglass/segdia.h"

#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace spyglass;

namespace {

void writeSeed(const std::string& dir, const std::string& name, Index rows, Index cols,
               const std::vector<DenseRegion>& regions, unsigned seed)
{
    // Each region mostly filled, a few random ones outside, so both zeros and residual exist.
    std::mt19937 rng(seed);
    std::vector<Index> r, c;
    for (const DenseRegion& region : regions)
        for (Index i = region.rowBegin; i < region.rowEnd; ++i) {
            const ColumnSpan span = region.span(i);
            for (Index j = span.begin; j < span.end; ++j)
                if (rng() % 8 != 0) { r.push_back(i); c.push_back(j); }
        }
    for (int k = 0; k < rows; ++k) { r.push_back(rng() % rows); c.push_back(rng() % cols); }
    const BinaryPattern pattern = binaryPatternFromCoordinates(rows, cols, r, c);
    HybridEncodeOptions options;
    options.forceRegions = true;
    const HybridBinaryMatrix hybrid = encodeHybrid(pattern, regions, options);
    writeHybridContainer(dir + "/" + name, hybrid, "fuzz seed " + name);
}

DenseRegion makeRegion(RegionShape shape, TriangleCorner corner, Index r0, Index r1, Index c0, Index c1,
                       Index low = 0, Index high = 0)
{
    DenseRegion d;
    d.shape = shape; d.corner = corner;
    d.rowBegin = r0; d.rowEnd = r1; d.colBegin = c0; d.colEnd = c1;
    d.bandLow = low; d.bandHigh = high;
    return d;
}

// A small real matrix: a band, a few scattered entries, an explicit zero; sizes not multiples of anything.
CooMatrix<double> smallCoo(Index rows, Index cols, unsigned seed)
{
    std::mt19937 rng(seed);
    CooMatrix<double> coo;
    coo.rows = rows;
    coo.cols = cols;
    for (Index i = 0; i < rows; ++i)
        for (Index j = 0; j < cols; ++j)
            if ((i - j >= -1 && i - j <= 2) || rng() % 11 == 0) {
                coo.rowIndex.push_back(i);
                coo.colIndex.push_back(j);
                coo.values.push_back(double(int(rng() % 7) - 3));
            }
    return coo;
}

CooMatrix<double> ones(CooMatrix<double> coo)
{
    coo.values.assign(coo.values.size(), 1.0);
    return coo;
}

void writeSegdiaSeeds(const std::string& dir)
{
    writeSegmentedDiaContainer(dir + "/segdia.sgx", buildSegmentedDia(smallCoo(23, 19, 5), {4, true}), Field::Real, "fuzz seed");
    writeSegmentedDiaContainer(dir + "/segdia_pattern.sgx", buildSegmentedDia(ones(smallCoo(17, 21, 6)), {5, true}), Field::Pattern);
    writeSegmentedDiaContainer(dir + "/segdia_hdia.sgx", buildHdia(smallCoo(11, 11, 7), 3), Field::Integer);
}

void writeBitFlagSeeds(const std::string& dir)
{
    BitFlagOptions options;
    options.prefixCounts = true;
    options.keepExplicitZeros = true;
    writeBitFlagContainer(dir + "/bitflag_prefix.sgx", encodeBitFlag(smallCoo(9, 70, 8), options), Field::Real, "fuzz seed");
    options.order = BitFlagOrder::ColumnMajor;
    options.prefixCounts = false;
    writeBitFlagContainer(dir + "/bitflag_colmajor.sgx", encodeBitFlag(smallCoo(40, 13, 9), options), Field::Integer);
    writeBitFlagContainer(dir + "/bitflag_pattern.sgx", encodeBitFlag(ones(smallCoo(12, 20, 10))), Field::Pattern);
}

// Valued hybrid (summary flag "valued"): one region of each shape over a small real matrix, stored
// as f64 and as f32, an integer one, and a CSR-only fallback.
void writeValuedHybridSeeds(const std::string& dir)
{
    const CsrMatrix<double> a = cooToCsr(smallCoo(29, 31, 11));
    const std::vector<DenseRegion> regions = {
        makeRegion(RegionShape::Rectangle, TriangleCorner::LowerLeft, 1, 6, 20, 29),
        makeRegion(RegionShape::Triangle, TriangleCorner::UpperLeft, 8, 15, 0, 9),
        makeRegion(RegionShape::Triangle, TriangleCorner::LowerRight, 17, 22, 22, 30),
        makeRegion(RegionShape::Band, TriangleCorner::LowerLeft, 10, 17, 10, 20, -1, 2)};
    HybridValuedOptions options;
    options.forceRegions = true;
    const HybridValuedMatrix<double> h = encodeHybridValued(a, regions, options);
    writeHybridValuedContainer(dir + "/valued_f64.sgx", h, Field::Real, "fuzz seed");
    writeHybridValuedContainer(dir + "/valued_integer.sgx", h, Field::Integer);
    writeHybridValuedContainer(dir + "/valued_f32.sgx", encodeHybridValued(convertValues<float>(a), regions, options));
    writeHybridValuedContainer(dir + "/valued_fallback.sgx", encodeHybridValued(a, {}));
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_container_seeds DIR\n");
        return 2;
    }
    const std::string dir = argv[1];
    try {
        writeSeed(dir, "rectangle.sgx", 13, 11, {makeRegion(RegionShape::Rectangle, TriangleCorner::LowerLeft, 2, 8, 1, 7)}, 1);
        writeSeed(dir, "triangle.sgx", 17, 17, {makeRegion(RegionShape::Triangle, TriangleCorner::LowerLeft, 0, 9, 0, 9),
                                                makeRegion(RegionShape::Triangle, TriangleCorner::UpperRight, 10, 16, 10, 16)}, 2);
        writeSeed(dir, "band.sgx", 19, 23, {makeRegion(RegionShape::Band, TriangleCorner::LowerLeft, 3, 15, 4, 20, -2, 3)}, 3);
        writeSeed(dir, "fallback.sgx", 9, 7, {}, 4);
        writeSegdiaSeeds(dir);
        writeBitFlagSeeds(dir);
        writeValuedHybridSeeds(dir);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_container_seeds: %s\n", e.what());
        return 1;
    }
    return 0;
}
