#pragma once
// A number with a fixed count of decimals for tables, notes and messages ("-" for NaN or Inf).
#include <cmath>
#include <cstdio>
#include <string>

namespace spyglass {

inline std::string fixedText(double value, int decimals) {
    if (!std::isfinite(value)) return "-";
    char text[40];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

} // namespace spyglass
