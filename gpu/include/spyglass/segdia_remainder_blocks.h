#pragma once
// The segmented-DIA remainder as the row-blocks kernel (gpu/src/cuda/segdia_remainder_spmv.cu) walks
// it: one CSR row-start array over the whole matrix, and the rows cut into blocks of about equal
// entries, one thread block each. Derived at upload from the format's per-segment arrays, never stored.
// Host code without CUDA, so that the CPU tests check the cut (tst_segdia_remainderblocks).
#include "spyglass/segdia.h"

#include <vector>

namespace spyglass {

// Entries one row block sums at most (its products fit in shared memory: 8 KB in fp32, 16 KB in c128),
// and rows at most.
template <typename T> constexpr Index remainderBlockEntries() { return sizeof(T) > 8 ? 1024 : 2048; }
constexpr Index kRemainderBlockRows = 1024;

// Flags of a row block.
constexpr Index kRemainderAssigns = 1;  // its rows lie in segments without diagonals: y = sum, not y += sum
constexpr Index kRemainderLongRow = 2;  // one row of more than remainderBlockEntries<T>() entries

// What a thread block reads first, all of it in one round trip: where its rows and entries are.
struct RemainderRowBlock {
    Index firstRow = 0;  // global rows [firstRow, firstRow + rows)
    Index rows = 0;
    Index flags = 0;
    Index entryBegin = 0, entryEnd = 0;  // its entries [entryBegin, entryEnd) of the remainder arrays
};

struct RemainderRowBlocks {
    std::vector<Index> rowStart;            // rows + 1: each global row's first remainder entry
    // Blocks of one long row first, longest first; then the others in ascending rows. No row is in two.
    std::vector<RemainderRowBlock> blocks;
};

// What SegmentedDiaRemainderKernel::Automatic runs: Owners (true) where the remainder is light, at
// most an eighth of the nonzeros and in no segment more entries than its DIA slots; RowBlocks otherwise.
template <typename T> bool remainderIsLight(const SegmentedDiaMatrix<T>& m);

// True when the row-blocks kernel can take the matrix's remainder: its entries index with 32 bits.
template <typename T> bool remainderFitsRowBlocks(const SegmentedDiaMatrix<T>& m);

// Every row with remainder entries, and every row of a segment without diagonals (the DIA pass skips
// those segments, so their rows' y comes from here, zero when empty), lies in exactly one block. A
// block never mixes rows that assign with rows that add; a row longer than remainderBlockEntries<T>() is
// a block of its own. Requires remainderFitsRowBlocks(m).
template <typename T> RemainderRowBlocks planRemainderRowBlocks(const SegmentedDiaMatrix<T>& m);

} // namespace spyglass
