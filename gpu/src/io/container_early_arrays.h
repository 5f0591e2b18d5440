#pragma once
// A reopened container becomes a coordinate Matrix whose row, column and value arrays are std::vectors:
// sizing them is a one-thread zero-fill of every byte (and, before it, the page faults), about half
// of a 12 M-entry reopen on a 16-core host when it came after the checks. The entry count is in the
// file's framing (a segmented-DIA summary, a hybrid CSR fallback's residual), so the arrays are sized
// on threads of their own from the start, while the checksum and the structure checks run. The decoder
// writes into the part already sized as soon as its checks pass (waitSized), and takes the arrays when
// they match the count it has validated; otherwise it drops them and sizes its own.
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
};

class EarlyCoordinateArrays {
public:
    EarlyCoordinateArrays();  // nothing started
    // Reserves arrays for `entries` entries (values too when `withValues`) and starts sizing them on
    // other threads. Throws std::bad_alloc / std::system_error when it cannot start.
    EarlyCoordinateArrays(std::size_t entries, bool withValues);
    ~EarlyCoordinateArrays();  // waits for the sizing threads: a file refused meanwhile drops the arrays
    EarlyCoordinateArrays(EarlyCoordinateArrays&&) noexcept;
    EarlyCoordinateArrays& operator=(EarlyCoordinateArrays&&) noexcept;

    // Started, for exactly `entries` entries, with values exactly when `withValues`.
    bool sizingFor(std::size_t entries, bool withValues) const;
    // Where the arrays are (fixed from the start: their capacity is reserved); entries below
    // waitSized's bound may be written while the rest is still being sized.
    Index* rows() const;
    Index* cols() const;
    double* values() const;  // nullptr without values
    // Returns once entries [0, n) of every array are sized (value-initialised).
    void waitSized(std::size_t n) const;
    // Waits for the whole sizing and hands the arrays over (empty when nothing was started).
    CoordinateArrays take();

private:
    struct Sizing;
    std::unique_ptr<Sizing> m_sizing;
};

// The arrays a container's framing says its Matrix will need, started at once; nothing started when
// the bytes are not a well-framed container whose entry count can be read before decoding (bit-flag,
// hybrid with regions), or when the count is beyond maxEntries, the host's memory, or
// what the file's sections can hold (each entry is stored in at least one byte: a tiny hostile file
// sizes nothing big), or when the host has too few cores to size beside the checks. Never throws: the
// real checks come after and report what is wrong.
EarlyCoordinateArrays startSizingFromFraming(std::string_view bytes, Count maxEntries);

} // namespace spyglass::container_decode
