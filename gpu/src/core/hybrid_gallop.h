#pragma once
// Lower bounds in a row's sorted columns that start from the end nearer the answer. A dense region's
// span usually starts a few entries into its row and ends a few entries before the row's end (the
// scattered rest is sparse), so galloping from that end touches two or three cache lines where a
// binary search over a row of 2000 entries touches a dozen, each a miss.
#include <algorithm>
#include <cstddef>

namespace spyglass::hybrid_detail {

// The first element of [first, last) not less than value, searched from the front.
template <typename T>
const T* lowerBoundFromFront(const T* first, const T* last, T value) {
    std::ptrdiff_t step = 1, low = 0;
    const std::ptrdiff_t size = last - first;
    while (low + step <= size && first[low + step - 1] < value) {
        low += step;
        step *= 2;
    }
    return std::lower_bound(first + low, first + std::min(size, low + step), value);
}

// The first element of [first, last) not less than value, searched from the back.
template <typename T>
const T* lowerBoundFromBack(const T* first, const T* last, T value) {
    std::ptrdiff_t step = 1, high = last - first;  // every element at or after high is >= value
    while (high - step >= 0 && !(first[high - step] < value)) {
        high -= step;
        step *= 2;
    }
    return std::lower_bound(first + std::max<std::ptrdiff_t>(0, high - step), first + high, value);
}

} // namespace spyglass::hybrid_detail
