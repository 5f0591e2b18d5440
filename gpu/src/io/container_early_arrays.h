#pragma once
// A reopened container becomes a coordinate Matrix whose row, column and value arrays are std::vectors:
// sizing them is a one-thread zero-fill of every byte (and, before it, the page faults), about half
// of a 12 M-entry reopen on a 16-core host when it came after the checks. The entry count is in the
// file's framing (a segmented-DIA summary, a valued hybrid's residual), so the arrays are sized on
// their own threads from the start, while the checksum and the structure checks run; the decoder takes
// them when they match the count it has validated, and sizes its own otherwise.
#include "spyglass/matrix.h"

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace spyglass::container_decode {

// A Matrix's coordinate arrays: rows, columns and (empty for a pattern) values.
struct CoordinateArrays {
    std::vector<Index> rows, cols;
    std::vector<double> values;

    // Sized for `entries` entries, with values exactly when `withValues`.
    bool sizedFor(std::size_t entries, bool withValues) const {
        return rows.size() == entries && cols.size() == entries && values.size() == (withValues ? entries : 0);
    }
};

class EarlyCoordinateArrays {
public:
    EarlyCoordinateArrays();  // nothing started: take() gives empty arrays
    // Starts sizing arrays for `entries` entries (values too when `withValues`) on other threads.
    EarlyCoordinateArrays(std::size_t entries, bool withValues);
    ~EarlyCoordinateArrays();  // waits for the sizing threads: a file refused meanwhile drops the arrays
    EarlyCoordinateArrays(EarlyCoordinateArrays&&) noexcept;
    EarlyCoordinateArrays& operator=(EarlyCoordinateArrays&&) noexcept;

    // Waits for the sizing and hands the arrays over (empty when nothing was started, or when the
    // sizing failed: out of memory is left to the decoder's own sizing, which reports it).
    CoordinateArrays take();

private:
    struct Sizing;
    std::unique_ptr<Sizing> m_sizing;
};

// The arrays a container's framing says its Matrix will need, started at once; nothing started when
// the bytes are not a well-framed container whose entry count can be read before decoding (bit-flag,
// binary hybrid), or when the count is beyond maxEntries, the host's memory, or what the file's
// sections can hold (each entry is stored in at least one byte: a tiny hostile file sizes nothing big).
// Never throws: the real checks come after and report what is wrong.
EarlyCoordinateArrays startSizingFromFraming(std::string_view bytes, Count maxEntries);

} // namespace spyglass::container_decode
