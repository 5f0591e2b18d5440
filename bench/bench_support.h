#pragma once
// Small pieces every benchmark program prints the same way.
#include "spyglass/backend.h"

#include <complex>
#include <cstdio>
#include <exception>
#include <type_traits>

namespace spyglass::bench {

// The precision column of a row: f32, f64, c64 (complex float), c128.
template <typename T> constexpr const char* typeName() {
    if constexpr (std::is_same_v<T, float>) return "f32";
    else if constexpr (std::is_same_v<T, double>) return "f64";
    else if constexpr (std::is_same_v<T, std::complex<float>>) return "c64";
    else {
        static_assert(std::is_same_v<T, std::complex<double>>, "a benchmark precision");
        return "c128";
    }
}

// False, after saying why on stderr as "<program>: <reason>", when there is no device to time on.
inline bool deviceReady(const DeviceInfo& device, const char* program) {
    if (!device.present) std::fprintf(stderr, "%s: %s\n", program, device.reason.c_str());
    return device.present;
}

// main's exit code: what `body` returns, or 1 after "<program>: <what>" on stderr when it throws.
template <typename Body> int exitCodeOf(const char* program, Body body) {
    try {
        return body();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", program, e.what());
        return 1;
    }
}

} // namespace spyglass::bench
