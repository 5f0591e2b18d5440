// Past the seed: the segment length chosen per matrix instead of one fixed threshold.
// The seed cuts every matrix into segments of one fixed length. Where the band structure changes
// every few hundred rows (pieces of a banded matrix that do not line up with 1024-row segments),
// a long segment takes the union of its pieces' diagonals: padding, or a large CSR remainder that the
// GPU streams slower than DIA slots. On the H100 such a matrix ran at 0.65x cuSPARSE with 1024-row
// segments and 1.24x with 256 (bench/results/spmv_dia_merge.md, "scattered bands"). Each candidate
// length is built and the one that moves the fewest bytes (the remainder's weighted as the builder's
// Auto rule weighs them) wins; a shorter segment must save a clear share to win, because on stencils,
// where every length stores the same bytes, the longest was the fastest (bench/results/spmv_dia_sweep.md).
// 256-row segments have one more condition: the kernel's 256-thread blocks keep only a quarter (f32)
// or half (f64) of their lanes busy on them, which costs little when each segment holds a few
// diagonals (scattered bands, about 7: 1.47x cuSPARSE at 256 rows against 0.64x at 1024) but halved
// the bandwidth with many (n1024-l1 tiled, 63 wrap-around diagonals: 0.87x at 256 rows, 1.60x at
// 512; 2 x H200, 2026-11-27). So 256 rows are taken only while the mean segment keeps at most
// kMaxDiagonalsForShortSegments diagonals.
#include "spyglass/segdia.h"

#include "spyglass/error.h"

#include <complex>
#include <string>

namespace spyglass {

double modeledSegmentedDiaBytes(const SegmentedDiaStats& stats, double csrByteWeight) {
    const double diaPart = double(stats.bytes - stats.remainderBytes);
    return diaPart + csrByteWeight * double(stats.remainderBytes);
}

template <typename T>
SegmentedDiaMatrix<T> buildSegmentedDiaChoosingThreshold(const CooMatrix<T>& coo, const SegmentedDiaOptions& options,
                                                         std::vector<SegmentThresholdTrial>* trials) {
    SegmentedDiaMatrix<T> best;
    double bestBytes = 0;
    for (const Index threshold : kSegmentThresholdCandidates) {
        SegmentedDiaOptions candidate = options;
        candidate.threshold = threshold;
        SegmentedDiaMatrix<T> built = buildSegmentedDia(coo, candidate);
        const SegmentedDiaStats stats = computeSegmentedDiaStats(built);
        const double bytes = modeledSegmentedDiaBytes(stats, options.csrByteWeight);
        const double meanDiagonals = stats.segments > 0 ? double(stats.totalDiagonals) / double(stats.segments) : 0.0;
        const bool first = best.segmentFirstRow.empty();
        const bool fewEnoughDiagonals = threshold > 256 || meanDiagonals <= kMaxDiagonalsForShortSegments;
        const bool wins = first || (bytes < bestBytes * (1.0 - kShorterSegmentMinSaving) && fewEnoughDiagonals);
        if (trials) trials->push_back({threshold, bytes, meanDiagonals, wins});
        if (wins) {
            best = std::move(built);
            bestBytes = bytes;
        }
    }
    return best;
}

#define SPYGLASS_SEGDIA_THRESHOLD_INSTANTIATE(T)                                                     \
    template SegmentedDiaMatrix<T> buildSegmentedDiaChoosingThreshold<T>(                            \
        const CooMatrix<T>&, const SegmentedDiaOptions&, std::vector<SegmentThresholdTrial>*);
SPYGLASS_SEGDIA_THRESHOLD_INSTANTIATE(float)
SPYGLASS_SEGDIA_THRESHOLD_INSTANTIATE(double)
SPYGLASS_SEGDIA_THRESHOLD_INSTANTIATE(std::complex<float>)
SPYGLASS_SEGDIA_THRESHOLD_INSTANTIATE(std::complex<double>)

} // namespace spyglass
