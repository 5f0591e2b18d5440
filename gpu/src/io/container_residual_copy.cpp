#include "io/container_residual_copy.h"

#include "core/parallel_ranges.h"
#include "io/container_io.h"

#include "spyglass/container.h"

#include <algorithm>
#include <atomic>

namespace spyglass::container_io {

namespace {

// Pointer k of the residual, read from the file's bytes.
Count pointerAt(std::string_view pointerBytes, std::size_t k) { return get<Count>(pointerBytes, k * sizeof(Count)); }

} // namespace

bool pointersOrdered(std::string_view pointerBytes) {
    const std::size_t n = pointerBytes.size() / sizeof(Count);
    if (n == 0 || pointerAt(pointerBytes, 0) != 0) return false;
    // Each range compares its pointers with the one before it: the ranges' seams are checked too.
    constexpr std::size_t kMinPointersPerThread = std::size_t(1) << 16;
    const std::vector<std::size_t> bounds = parallel::evenBounds(n - 1, parallel::threadsFor(n - 1, kMinPointersPerThread));
    std::atomic<bool> ordered{true};
    parallel::forEachRange(bounds, [&](std::size_t, std::size_t first, std::size_t last) {
        bool ok = true;
        Count previous = pointerAt(pointerBytes, first);
        for (std::size_t k = first + 1; k <= last; ++k) {
            const Count p = pointerAt(pointerBytes, k);
            ok &= p >= previous;
            previous = p;
        }
        if (!ok) ordered.store(false, std::memory_order_relaxed);
    });
    return ordered.load();
}

bool copyResidualBehindSizing(container_decode::EarlyCoordinateArrays& early, std::string_view pointerBytes, Index cols,
                              std::string_view columnBytes, std::string_view valueBytes, std::uint32_t valueType,
                              container_decode::CoordinateArrays& out) {
    const std::size_t pointerCount = pointerBytes.size() / sizeof(Count);
    const auto entries = static_cast<std::size_t>(pointerAt(pointerBytes, pointerCount - 1));
    Index* columns = early.cols();
    double* values = early.values();
    Index* rowOf = early.rows();
    const bool widen = valueType == static_cast<std::uint32_t>(container::ValueType::Float32);
    // Pieces taken in order by whichever thread is free: the pass follows right behind the sizing and
    // ends with it.
    constexpr std::size_t kPiece = std::size_t(1) << 17;
    // Every thread, a piece or more each: sized by the bytes read alone (8 MB a thread), a pattern's
    // 48 MB of columns got 6 threads of 16, though the pass also writes the rows and checks each column.
    const std::size_t parts = parallel::threadsFor(entries, kPiece);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> columnsBad{false};
    parallel::onThreads(parts, [&](std::size_t) {
        for (std::size_t at; (at = kPiece * next.fetch_add(1)) < entries;) {
            const std::size_t n = std::min(kPiece, entries - at);
            early.waitSized(at + n);
            copyLittleEndian(columnBytes, at * sizeof(Index), n, columns + at);
            if (values && widen)
                for (std::size_t k = at; k < at + n; ++k) values[k] = static_cast<double>(get<float>(valueBytes, 4 * k));
            else if (values)
                copyLittleEndian(valueBytes, at * sizeof(double), n, values + at);
            // The row holding entry `at`: the last row whose pointer is at or below it.
            std::size_t low = 0, high = pointerCount;  // the first pointer above `at` lies in (low, high]
            while (high - low > 1) {
                const std::size_t mid = low + (high - low) / 2;
                if (pointerAt(pointerBytes, mid) <= Count(at)) low = mid;
                else high = mid;
            }
            std::size_t row = low;
            Index previous = at > 0 ? get<Index>(columnBytes, (at - 1) * sizeof(Index)) : 0;
            bool bad = false;
            for (std::size_t k = at; k < at + n; ++k) {
                while (pointerAt(pointerBytes, row + 1) <= Count(k)) ++row;
                rowOf[k] = static_cast<Index>(row);
                const Index j = columns[k];
                bad |= j < 0 || j >= cols || (Count(k) > pointerAt(pointerBytes, row) && j <= previous);
                previous = j;
            }
            if (bad) columnsBad.store(true, std::memory_order_relaxed);
        }
    });
    out = early.take();
    return !columnsBad.load();
}

} // namespace spyglass::container_io
