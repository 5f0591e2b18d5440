// One printable name per enumerator, held in a table indexed by the enumerator's value.
#pragma once

#include <cstddef>

namespace spyglass {

// Every named enumeration counts in steps of one from First (0 unless its values are stored in a
// file format, like ContainerEncoding), so its names are a plain array. Last is the enumeration's
// last enumerator: a table with a name missing or one too many does not compile. A value outside
// the enumeration (a cast from a bad int) prints as "?".
template <auto First, auto Last, std::size_t N>
constexpr const char* nameOfFrom(decltype(Last) value, const char* const (&names)[N]) {
    static_assert(N == static_cast<std::size_t>(Last) - static_cast<std::size_t>(First) + 1,
                  "one name per enumerator, in order");
    // Unsigned: a value below First wraps to a large index and is caught by the bound below.
    const auto index = static_cast<std::size_t>(value) - static_cast<std::size_t>(First);
    return index < N ? names[index] : "?";
}

template <auto Last, std::size_t N>
constexpr const char* nameOf(decltype(Last) value, const char* const (&names)[N]) {
    return nameOfFrom<decltype(Last){}, Last>(value, names);
}

} // namespace spyglass
