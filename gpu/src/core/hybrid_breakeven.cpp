// When the hybrid encoding has paid for itself against CSR: the arithmetic the benchmark, the
// command-line tool and the Dense regions tab share.
#include "spyglass/hybrid_spmv.h"

#include <cmath>
#include <cstdio>

namespace spyglass {

HybridBreakEven hybridBreakEven(double prepareMs, double hybridSpmvMs, double csrUploadMs, double csrSpmvMs) {
    HybridBreakEven even;
    even.prepareMs = prepareMs;
    even.hybridSpmvMs = hybridSpmvMs;
    even.csrUploadMs = csrUploadMs;
    even.csrSpmvMs = csrSpmvMs;
    const double saved = csrSpmvMs - hybridSpmvMs;
    if (!(saved > 0) || !std::isfinite(prepareMs) || !std::isfinite(csrUploadMs)) return even;
    even.never = false;
    even.exact = (prepareMs - csrUploadMs) / saved;
    even.spmvs = even.exact <= 1.0 ? 1 : static_cast<long long>(std::ceil(even.exact));
    return even;
}

std::string HybridBreakEven::text() const {
    char line[160];
    if (never) return "never (the hybrid SpMV is not faster than CSR's)";
    if (spmvs <= 1) return "from the first SpMV";
    std::snprintf(line, sizeof line, "after %lld SpMVs", spmvs);
    return line;
}

std::string HybridBreakEven::formula() const {
    char line[300];
    std::snprintf(line, sizeof line, "(prepare %.3f - CSR upload %.3f ms) / (CSR SpMV %.4f - hybrid SpMV %.4f ms)%s", prepareMs,
                  csrUploadMs, csrSpmvMs, hybridSpmvMs, never ? "" : (" = " + std::to_string(exact)).c_str());
    return line;
}

} // namespace spyglass
