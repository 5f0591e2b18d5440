#pragma once
// Method B: SpMV for diagonal-structured matrices by merged row segments (seeds/001, SEEDS.md B).
//
//   1. COO in.
//   2. Fixed-threshold partition: rows are cut into segments of `threshold` rows; each segment keeps
//      its own sorted, de-duplicated diagonal offsets (col - row) and stores its nonzeros by diagonal
//      (DIA inside the segment, so zero padding stays inside it). Operand count = diagonals x rows.
//   3. Iterative merging for load balance (rule in gpu/src/core/segdia_merge.cpp): segments are grouped into
//      blocks until no block holds more than twice the operands of another.
//   4. One GPU thread block per merged block, one thread per row.
// Past the seed: a per-segment CSR remainder. A diagonal that is sparsely filled inside a segment costs
// more as DIA (every row a slot) than as CSR (value + column per nonzero); the builder's Auto policy
// moves such diagonals' nonzeros into the segment's remainder (rule in segdia_build.cpp), so the
// padding the seed's format pays on matrices like watt_2 goes away while stencils stay pure DIA.
// Plain DIA (Bell & Garland) and HDIA (equal row groups, no merging) are kept beside it as the
// weaker formats the seed names.
#include "spyglass/matrix.h"

#include <cstddef>
#include <string>
#include <vector>

namespace spyglass {

// Where a segment's nonzeros go that its DIA part would store wastefully.
enum class SegmentedDiaRemainder {
    Off,   // the seed's pure DIA: every diagonal a segment touches is stored whole
    Auto,  // per segment, a diagonal stays DIA only where that takes no more bytes than CSR would
    All,   // every nonzero in the CSR remainder (no DIA part): exercises the remainder path in tests
};
const char* toString(SegmentedDiaRemainder policy);

struct SegmentedDiaOptions {
    // Rows per segment (the seed's fixed threshold), at least 1; 1024 was fastest on an H100 for
    // stencils. kChooseSegmentThreshold (0) lets the builder choose per matrix (see below).
    Index threshold = 1024;
    bool merge = true;      // false gives HDIA: equal row groups, one block each
    SegmentedDiaRemainder remainder = SegmentedDiaRemainder::Auto;
    // Auto's weight on CSR bytes against DIA bytes (rule in segdia_build.cpp): 1 is the plain byte
    // count; 1.5, the default, because the H100 streams the remainder slower than DIA slots (measured:
    // bench/results/spmv_dia_scaled.md). Must be positive.
    double csrByteWeight = 1.5;
    // Auto keeps the whole matrix pure DIA unless its remainder cuts the bytes of values, columns and
    // row starts by at least this fraction against pure DIA: the remainder kernel costs ~7 % on
    // matrices where it changes little (measured on the CFD-like case), since its extra registers
    // lower occupancy in every segment. 0 takes any saving. In [0, 1).
    double remainderMinSaving = 0.10;
};

// Which branch of the merge rule fired (see gpu/src/core/segdia_merge.cpp).
enum class DiaMergeRule {
    TwoSmallest,       // max > 2 x second smallest: the two smallest blocks become one
    SmallestIntoNext,  // only the smallest is below max / 2: it joins the second smallest
};
const char* toString(DiaMergeRule rule);

// One merge, for the GUI to list. A block is named by its lowest segment index (its "lead").
struct DiaMergeStep {
    DiaMergeRule rule = DiaMergeRule::TwoSmallest;
    Index absorbedLead = 0, intoLead = 0;  // the smallest block joins intoLead's block
    Count absorbedWork = 0, intoWork = 0;  // operand counts before the merge
    Count maxWork = 0;                     // the largest block's operands at that time
    Count blocksAfter = 0;
};

struct SegmentedDiaStats {
    Count segments = 0;        // before merging
    Count blocks = 0;          // after merging
    Count nonzeros = 0;        // encoded entries (duplicates summed), DIA part and remainder
    Count storedSlots = 0;     // sum over segments of diagonals x rows (the DIA part)
    Count diaNonzeros = 0;     // nonzeros held by the DIA part
    double paddingRatio = 0;   // storedSlots / diaNonzeros (1 = no padding; 0 when the DIA part is empty)
    Count remainderNonzeros = 0;      // nonzeros in the per-segment CSR remainders
    Count remainderSegments = 0;      // segments with a non-empty remainder
    std::size_t remainderBytes = 0;   // the remainder's arrays (row starts, columns, values, per-segment starts)
    // With a remainder: the GPU's default kernel sums it in a pass of its own (row blocks) rather than
    // in the DIA pass's owner threads (SegmentedDiaRemainderKernel::Automatic, segdia_spmv.h).
    bool remainderOwnPass = false;
    Count maxBlockWork = 0, minBlockWork = 0;  // operands per merged block
    Index maxSegmentDiagonals = 0;
    Count totalDiagonals = 0;  // sum over segments
    std::size_t bytes = 0;     // bytes of all arrays of the compressed format (values of type T), remainder included
};

template <typename T>
struct SegmentedDiaMatrix {
    Index rows = 0, cols = 0;
    Index threshold = 0;
    Count nonzeros = 0;
    // Row segments in row order. Segment s covers rows [segmentFirstRow[s], segmentFirstRow[s+1]).
    std::vector<Index> segmentFirstRow;     // segments + 1
    std::vector<Count> segmentOffsetStart;  // segments + 1, into offsets
    std::vector<Index> offsets;             // per segment: sorted unique col - row
    std::vector<Count> segmentValueStart;   // segments + 1, into values
    // Per segment, diagonal-major: value of diagonal d, local row i at segmentValueStart[s] + d * rows(s) + i.
    // Slots with no entry (padding, or columns outside the matrix) hold 0.
    std::vector<T> values;
    // The CSR remainder (empty with SegmentedDiaRemainder::Off): nonzeros of the diagonals the builder
    // did not keep as DIA. Segment s holds entries [segmentRemainderStart[s], segmentRemainderStart[s+1])
    // of remainderColumns / remainderValues, rows in order, columns ascending. A segment with a
    // non-empty remainder has rows(s) + 1 row starts at remainderRowStart[segmentRemainderRowStart[s]..],
    // relative to its first entry (0 .. its entry count); a segment without one has none, so pure-DIA
    // segments pay only the two per-segment starts. No remainder entry lies on a diagonal the segment
    // keeps as DIA: every nonzero is stored exactly once.
    std::vector<Count> segmentRemainderStart;     // segments + 1
    std::vector<Count> segmentRemainderRowStart;  // segments + 1
    std::vector<Index> remainderRowStart;
    std::vector<Index> remainderColumns;
    std::vector<T> remainderValues;
    // Merged blocks in order of their lead segment; block b runs the segments
    // blockSegments[blockStart[b] .. blockStart[b+1]), ascending.
    std::vector<Index> blockStart;          // blocks + 1
    std::vector<Index> blockSegments;
    std::vector<DiaMergeStep> mergeSteps;

    Index segments() const { return segmentFirstRow.empty() ? 0 : static_cast<Index>(segmentFirstRow.size() - 1); }
    Index blocks() const { return blockStart.empty() ? 0 : static_cast<Index>(blockStart.size() - 1); }
    Index segmentRows(Index s) const { return segmentFirstRow[s + 1] - segmentFirstRow[s]; }
    Index segmentDiagonals(Index s) const {
        return static_cast<Index>(segmentOffsetStart[s + 1] - segmentOffsetStart[s]);
    }
    Count segmentRemainderCount(Index s) const { return segmentRemainderStart[s + 1] - segmentRemainderStart[s]; }
    // Operands of a segment: its DIA slots plus its remainder's nonzeros (what the merge balances).
    Count segmentWork(Index s) const { return Count(segmentDiagonals(s)) * segmentRows(s) + segmentRemainderCount(s); }
    Count blockWork(Index b) const {
        Count work = 0;
        for (Index i = blockStart[b]; i < blockStart[b + 1]; ++i) work += segmentWork(blockSegments[i]);
        return work;
    }
};

// Plain DIA (Bell & Garland): one offset list for the whole matrix, values diagonal-major with a
// stride of rows: value of diagonal d in row i at values[d * rows + i].
template <typename T>
struct DiaMatrix {
    Index rows = 0, cols = 0;
    Count nonzeros = 0;
    std::vector<Index> offsets;
    std::vector<T> values;
    Count storedSlots() const { return Count(offsets.size()) * rows; }
};

// Builds the format. Entries out of range throw InputError naming the entry; duplicates are summed.
// T: float or double.
template <typename T>
SegmentedDiaMatrix<T> buildSegmentedDia(const CooMatrix<T>& coo, const SegmentedDiaOptions& options = {});
// HDIA is the same storage without merging.
template <typename T>
SegmentedDiaMatrix<T> buildHdia(const CooMatrix<T>& coo, Index rowsPerGroup);
template <typename T>
DiaMatrix<T> buildDia(const CooMatrix<T>& coo);
// Plain DIA stores rows x diagonals slots; refuse before allocating when that exceeds maxSlots.
template <typename T>
DiaMatrix<T> buildDia(const CooMatrix<T>& coo, Count maxSlots);

// The segment length chosen per matrix (gpu/src/core/segdia_threshold.cpp): each candidate, longest
// first, is built with the other options unchanged, and a shorter one replaces the best so far only if
// its modeled bytes (DIA part plus csrByteWeight x remainder) are at least kShorterSegmentMinSaving
// lower (and, for 256 rows, its segments keep few diagonals: the reason is in that file). The returned matrix's threshold says which length won; trials, if given, gets every candidate.
inline constexpr Index kChooseSegmentThreshold = 0;
inline constexpr Index kSegmentThresholdCandidates[] = {1024, 512, 256};
inline constexpr double kShorterSegmentMinSaving = 0.10;
inline constexpr double kMaxDiagonalsForShortSegments = 16;  // 256-row segments only below this mean
struct SegmentThresholdTrial {
    Index threshold = 0;
    double modeledBytes = 0;
    double meanDiagonals = 0;  // stored diagonals per segment
    bool chosenSoFar = false;  // it replaced the best of the longer candidates
};
double modeledSegmentedDiaBytes(const SegmentedDiaStats& stats, double csrByteWeight);
template <typename T>
SegmentedDiaMatrix<T> buildSegmentedDiaChoosingThreshold(const CooMatrix<T>& coo, const SegmentedDiaOptions& options = {},
                                                         std::vector<SegmentThresholdTrial>* trials = nullptr);

// Back to coordinates: every nonzero slot, in row order, columns ascending. Explicit zeros of the input
// cannot be told from padding and do not come back.
template <typename T>
CooMatrix<T> segmentedDiaToCoo(const SegmentedDiaMatrix<T>& matrix);
template <typename T>
CooMatrix<T> diaToCoo(const DiaMatrix<T>& matrix);

template <typename T>
SegmentedDiaStats computeSegmentedDiaStats(const SegmentedDiaMatrix<T>& matrix);

// Same structure, values converted (e.g. a double build used for a float benchmark).
template <typename To, typename From>
SegmentedDiaMatrix<To> convertValues(const SegmentedDiaMatrix<From>& matrix);

// The merge itself, on operand counts alone (exposed for tests and for the GUI's "what if" view):
// returns the blocks as lists of segment indices (each ascending, blocks ordered by lead segment) and
// appends the steps taken.
std::vector<std::vector<Index>> mergeSegmentsByWork(const std::vector<Count>& segmentWork,
                                                    std::vector<DiaMergeStep>* steps = nullptr);

} // namespace spyglass
