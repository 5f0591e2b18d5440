#pragma once
// The entries of one segment of a segmented-DIA matrix in coordinate order, shared by
// segmentedDiaToCoo and the container decoder, which must emit exactly the same entries.
#include "spyglass/segdia.h"

namespace spyglass::segdia_detail {

// Entries of segment s: per row, the nonzero diagonal slots in offset order with the row's remainder
// entries merged in by column. slotValue(k) is DIA slot k's value: m.values[k], or (the container
// decoder) the value read where it lies in the file, so that the slots are never copied into m.
// emit(row, col, value).
template <typename T, typename SlotValue, typename Emit>
void forEachSegmentEntryOf(const SegmentedDiaMatrix<T>& m, Index s, const SlotValue& slotValue, Emit&& emit) {
    const Index rowsHere = m.segmentRows(s);
    const Index diagonals = m.segmentDiagonals(s);
    const Count remainder = m.segmentRemainderCount(s);
    if (diagonals == 0 && remainder == 0) return;  // a segment of 2^31 empty rows (read from a file) costs nothing
    const Index* rowStart = remainder > 0 ? m.remainderRowStart.data() + m.segmentRemainderRowStart[s] : nullptr;
    const Count remainderStart = m.segmentRemainderStart[s];
    for (Index i = 0; i < rowsHere; ++i) {
        const Index row = m.segmentFirstRow[s] + i;
        // Offsets ascend, so walking diagonals within a row yields ascending columns; the row's
        // remainder entries (ascending too, never on a kept diagonal) are merged in.
        Count k = rowStart ? remainderStart + rowStart[i] : 0;
        const Count kEnd = rowStart ? remainderStart + rowStart[i + 1] : 0;
        const auto takeRemainderBefore = [&](Count col) {
            for (; k < kEnd && m.remainderColumns[k] < col; ++k) emit(row, m.remainderColumns[k], m.remainderValues[k]);
        };
        for (Index d = 0; d < diagonals; ++d) {
            const T v = slotValue(m.segmentValueStart[s] + Count(d) * rowsHere + i);
            if (v == T(0)) continue;
            const Index col = row + m.offsets[m.segmentOffsetStart[s] + d];
            takeRemainderBefore(col);
            emit(row, col, v);
        }
        takeRemainderBefore(Count(m.cols));
    }
}

template <typename T, typename Emit>
void forEachSegmentEntry(const SegmentedDiaMatrix<T>& m, Index s, Emit&& emit) {
    forEachSegmentEntryOf(m, s, [&m](Count k) { return m.values[static_cast<std::size_t>(k)]; }, emit);
}

} // namespace spyglass::segdia_detail
