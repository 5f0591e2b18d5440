#pragma once
// Column (or row) to thumbnail pixel without a divide instruction, for the loops that bin every
// nonzero: the detection thumbnail and the finer local pictures of the refinement.
#include <cstdint>

namespace spyglass::hybrid_detail {

// For n < 2^31, floor(n / d) == (n * m) >> shift with m = ceil(2^shift / d) and
// shift = 31 + ceil(log2 d) (Granlund and Montgomery: m's rounding error stays below 1/d there).
struct PixelDivider {
    std::uint64_t multiplier = 1;
    unsigned shift = 0;
    explicit PixelDivider(std::uint64_t d) {
        unsigned log2 = 0;
        while ((std::uint64_t(1) << log2) < d) ++log2;
        shift = 31 + log2;
        multiplier = ((std::uint64_t(1) << shift) + d - 1) / d;
    }
    std::uint32_t operator()(std::uint32_t n) const { return static_cast<std::uint32_t>((n * multiplier) >> shift); }
};

} // namespace spyglass::hybrid_detail
