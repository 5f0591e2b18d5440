#pragma once
// Structural statistics of a matrix, over the full (symmetry-expanded) matrix.
#include "spyglass/distinctentries.h"
#include "spyglass/matrix.h"

namespace spyglass {

struct MatrixStats {
    Index rows = 0, cols = 0;
    Count stored = 0;          // entries as stored in the file
    Count nnz = 0;             // entries after symmetric expansion (explicit zeros included)
    Field field = Field::Real;
    Symmetry symmetry = Symmetry::General;
    Layout layout = Layout::Coordinate;
    double density = 0.0;      // nnz / (rows * cols); 0 for an empty shape
    Index bandwidth = 0;       // max |i - j| over the entries
    Index lowerBandwidth = 0;  // max (i - j)
    Index upperBandwidth = 0;  // max (j - i)
    Count diagonals = 0;       // number of distinct offsets j - i holding an entry
    Index emptyRows = 0, emptyCols = 0;
    Index maxRowEntries = 0;
    bool binary = false;       // pattern field, or every value is 1
    bool hasNonFinite = false; // some value is NaN or Inf
    // What the reading left out to give one entry per position (makeEntriesDistinct): set with
    // noteDistinctEntries by whoever read the file; computeStats sees only the distinct entries.
    DistinctEntriesReport distinct;
};

// threads: 0 picks a count from the cores and the matrix (each thread keeps a byte per row); any other
// count is used as given. The figures are the same for every count.
MatrixStats computeStats(const Matrix& matrix, unsigned threads = 0);
// Records what makeEntriesDistinct removed: `stored` counts the file's entries again and `layout`
// says array for a dense file, while nnz, density and the rest stay those of the distinct entries.
void noteDistinctEntries(MatrixStats& stats, const DistinctEntriesReport& report);
// The count computeStats picks for threads = 0: every core, fewer where the per-thread counters would
// outweigh the entries.
unsigned automaticStatsThreads(const Matrix& matrix);

} // namespace spyglass
