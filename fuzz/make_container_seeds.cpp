// Writes valid hybrid containers (one per region shape, plus a CSR fallback) into the folder given
// as argv[1]: starting points from which the container fuzzer mutates its way into the section and
// encoding checks. Built and run by scripts/fuzz; the outputs are not committed.
#include "spyglass/container.h"
#include "spyglass/hybridbinary.h"

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
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_container_seeds: %s\n", e.what());
        return 1;
    }
    return 0;
}
