#pragma once
// One entry per position: what the statistics and every format see.
//
// A file can list a position twice (Matrix Market and the coordinate readers allow it), and every
// format sums such entries (as scipy's sum_duplicates and MATLAB's sparse() do), so the statistics
// must count the position once. A dense array (.npy, .mat, a Matrix Market array) stores its zeros,
// which MATLAB's nnz and scipy's count_nonzero do not count; they are dropped here (a coordinate
// file's explicit zeros are kept: there the file says the position is part of the structure, and
// scipy's nnz counts it).
#include "spyglass/matrix.h"

namespace spyglass {

struct DistinctEntriesReport {
    Count duplicatesSummed = 0;   // entries folded into an earlier entry of the same position
    Count arrayZerosDropped = 0;  // zeros of a dense array, no longer stored
    bool wasArray = false;        // the file was a dense array (its layout is now coordinate)
    bool orderProvenByReader = false;  // not checked here: the reader's checks proved it (readDistinctMatrixFile)
    Count removed() const { return duplicatesSummed + arrayZerosDropped; }
};

// Makes `matrix` hold one entry per position, in place. Entries keep their order when the file has
// no duplicates (checked in one pass over slices, on `threads` threads; 0 = every core); otherwise
// they come back sorted by row, then column. Indices outside the matrix are left for the caller's
// validation (computeStats names the first one): the matrix is then returned unchanged.
DistinctEntriesReport makeEntriesDistinct(Matrix& matrix, unsigned threads = 0);

} // namespace spyglass
