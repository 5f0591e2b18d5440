// One printable name per enumerator, held in a table indexed by the enumerator's value.
#pragma once

#include <cstddef>

namespace spyglass {

// Every named enumeration counts from 0 in steps of one, so its names are a plain array. Last is
// the enumeration's last enumerator: a table with a name missing or one too many does not compile.
// A value outside the enumeration (a cast from a bad int) prints as "?".
template <auto Last, std::size_t N>
constexpr const char* nameOf(decltype(Last) value, const char* const (&names)[N]) {
    static_assert(N == static_cast<std::size_t>(Last) + 1, "one name per enumerator, in order");
    const auto index = static_cast<std::size_t>(value);
    return index < N ? names[index] : "?";
}

} // namespace spyglass
