#pragma once
// One rank's rows of a Matrix Market file, for runs with one process per GPU (docs/scale.md): every
// rank scans the whole text, but keeps only the entries of its own block of rows, so its memory
// follows its rows, not the file's entries. The blocks are the ones the single-process path cuts
// (csrRowBlocks, spyglass/multigpu.h: CSR rows balanced by bytes), so both runs agree.
#include "spyglass/matrix.h"
#include "spyglass/matrixmarket.h"

#include <cstddef>
#include <string>
#include <vector>

namespace spyglass {

struct RankRows {
    int rank = 0, ranks = 1;
    Index rowBegin = 0, rowEnd = 0;  // this rank's rows of the whole matrix
    std::vector<Index> blockStarts;  // every rank's first row, then the row count (ranks + 1)
    // The whole matrix's header (shape, field, comments) as general coordinate; entries: those of
    // rows [rowBegin, rowEnd) of the full matrix, with global row and column numbers, in the order
    // expandSymmetry(readMatrixMarket(path)) lists them (a stored entry, then its mirror).
    Matrix entries;
};

// Reads rank `rank` of `ranks`' rows. valueBytes: the size of the values the run computes with (4
// or 8), which moves the cuts as it does for the single-process plan. The text is checked as
// readMatrixMarket checks it (the same ParseError and line), except that an upper entry of a symmetric
// file that repeats a stored lower one is found only by the rank whose rows hold it. Plain files
// only: InputError for a gzip file (each rank would decompress the whole of it twice).
// In a file that lists one position twice, the blocks follow the stored entries (a row counted with
// its duplicates), where the single-process plan counts the summed entry once: the blocks may then
// differ from its cuts, though every rank still holds exactly its rows.
RankRows readMatrixMarketRows(const std::string& path, int rank, int ranks, std::size_t valueBytes = sizeof(double),
                              const ReadOptions& options = {});

} // namespace spyglass
