// The format comparison's list of formats and its recommendation: the fastest measured row whose y agrees.
#include "spyglass/formatcomparison.h"

#include <cstdio>

namespace spyglass {

std::vector<SpmvFormat> allSpmvFormats() {
    return {SpmvFormat::Csr,           SpmvFormat::Dia,          SpmvFormat::Hdia,   SpmvFormat::SegmentedDia,
            SpmvFormat::SegmentedDiaNoRemainder, SpmvFormat::HybridBinary, SpmvFormat::HybridValued,
            SpmvFormat::BitFlag};
}

namespace {

const FormatRow* csrRow(const FormatComparison& c) {
    for (const FormatRow& row : c.results)
        if (row.format == SpmvFormat::Csr && row.applicable) return &row;
    return nullptr;
}

std::string bytesPhrase(double bytesOverCsr) {
    if (bytesOverCsr <= 0) return {};
    char text[64];
    if (bytesOverCsr <= 1.0 / 1.05) std::snprintf(text, sizeof text, ", %.1fx fewer bytes", 1.0 / bytesOverCsr);
    else if (bytesOverCsr >= 1.05) std::snprintf(text, sizeof text, ", %.1fx more bytes", bytesOverCsr);
    else std::snprintf(text, sizeof text, ", as many bytes");
    return text;
}

} // namespace

void pickFastestAgreeingRow(FormatComparison& c) {
    c.pick = -1;
    c.pickReason.clear();
    for (std::size_t i = 0; i < c.results.size(); ++i) {
        const FormatRow& row = c.results[i];
        if (!row.applicable || !row.agrees) continue;
        if (c.pick < 0 || row.spmv.medianMs < c.results[std::size_t(c.pick)].spmv.medianMs) c.pick = int(i);
    }
    if (c.pick < 0) {
        c.pickReason = "no format ran with a result that agrees with the reference";
        return;
    }
    const FormatRow& best = c.results[std::size_t(c.pick)];
    const FormatRow* csr = csrRow(c);
    char text[256];
    const double copyPercent = 100.0 * best.copyFraction;
    if (csr && &best == csr) {
        // CSR itself: name the runner-up so the reader sees by how much the others lost.
        const FormatRow* second = nullptr;
        for (const FormatRow& row : c.results)
            if (&row != csr && row.applicable && row.agrees && (!second || row.spmv.medianMs < second->spmv.medianMs)) second = &row;
        if (second)
            std::snprintf(text, sizeof text, "%s: the fastest measured, at %.0f %% of copy bandwidth (next: %s at %.2fx)",
                          best.name.c_str(), copyPercent, second->name.c_str(), second->speedupOverCsr);
        else
            std::snprintf(text, sizeof text, "%s: the only format whose result agrees, at %.0f %% of copy bandwidth", best.name.c_str(), copyPercent);
        c.pickReason = text;
    } else if (csr) {
        std::snprintf(text, sizeof text, "%s: %.2fx %s at %.0f %% of copy bandwidth", best.name.c_str(), best.speedupOverCsr,
                      csr->name.c_str(), copyPercent);
        c.pickReason = std::string(text) + bytesPhrase(best.bytesOverCsr);
    } else {
        std::snprintf(text, sizeof text, "%s: the fastest measured, at %.0f %% of copy bandwidth (CSR did not run)",
                      best.name.c_str(), copyPercent);
        c.pickReason = text;
    }
}

} // namespace spyglass
