// The shared benchmark harness: repeat-and-median timing, and the Markdown/JSON reports that land in
// bench/results/. Timing itself belongs to the callers (CUDA events or steady_clock).
#include "spyglass/benchmark.h"

#include "spyglass/atomicfile.h"
#include "spyglass/error.h"
#include "spyglass/measurement.h"
#include "core/fixedtext.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>

namespace spyglass::bench {

namespace {

std::string utcTimestamp() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

std::string jsonString(const std::string& text) {
    std::string out = "\"";
    for (const unsigned char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                out += escaped;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    return out + "\"";
}

// JSON has no NaN or infinity; an unmeasured figure becomes null rather than an unparsable file.
std::string jsonNumber(double value) {
    if (!std::isfinite(value)) return "null";
    char text[40];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

// A '|' inside a cell would split the Markdown table row.
std::string markdownCell(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += ' ';
        else out += c;
    }
    return out;
}


std::string general(double value) {
    if (!std::isfinite(value)) return "-";
    char text[40];
    std::snprintf(text, sizeof text, "%.3g", value);
    return text;
}

// The check column of the Markdown table: the status and the bound it was held to.
std::string checkCell(const Row& row) {
    if (!row.hasCheck()) return row.informational.empty() ? checkStatus(row) : "informational: " + row.informational;
    return checkStatus(row) + " (bound " + general(row.errorBound) + ")";
}

} // namespace

std::string checkStatus(const Row& row) {
    if (!row.hasCheck()) return row.informational.empty() ? "NO CHECK" : "informational";
    if (!row.checked) return "NOT CHECKED";
    return row.passed() ? "ok" : "FAILED (error above bound)";
}

// The measurement engine without its cold call: a benchmark's own warm-up runs first.
TimingSummary measure(const std::function<double()>& run, int warmup, int repeats) {
    if (!run) throw InputError("benchmark measure: no run callback given");
    if (repeats < 1) throw InputError("benchmark measure: repeats must be at least 1, got " + std::to_string(repeats));
    const Measurement m = measureRepeated(run, TimingOptions{warmup, repeats}, {}, false);
    TimingSummary summary;
    summary.repeats = m.repeats;
    summary.minMs = m.minMs;
    summary.maxMs = m.maxMs;
    summary.medianMs = m.medianMs;
    return summary;
}

Report::Report(std::string title, std::string device) : m_title(std::move(title)), m_device(std::move(device)) {}

void Report::add(const Row& row) {
    m_rows.push_back(row);
}

double Report::speedupOverBaseline(const Row& row) const {
    if (row.isBaseline) return 1.0;
    // The latest baseline: a program may re-measure the vendor row for a second configuration.
    for (auto it = m_rows.rbegin(); it != m_rows.rend(); ++it) {
        if (it->isBaseline && it->benchmark == row.benchmark) {
            if (row.time.medianMs <= 0) return 0.0;
            return it->time.medianMs / row.time.medianMs;
        }
    }
    return 0.0;
}

void Report::print(const Row& row) const {
    std::printf("%-40s %-34s %10.4f ms (min %.4f, max %.4f, n=%d)", row.benchmark.c_str(), row.variant.c_str(),
                row.time.medianMs, row.time.minMs, row.time.maxMs, row.time.repeats);
    if (row.bytes > 0) {
        std::printf("  %8.1f GB/s", row.gbPerSecond());
        if (m_peakGBs > 0) std::printf(" (%.0f%% of peak)", 100.0 * row.gbPerSecond() / m_peakGBs);
    }
    if (row.flops > 0) std::printf("  %8.1f GFLOP/s", row.gflopPerSecond());
    if (row.isBaseline) {
        std::printf("  [baseline]");
    } else {
        const double speedup = speedupOverBaseline(row);
        if (speedup > 0) std::printf("  %.2fx vs baseline", speedup);
    }
    if (row.error != 0 || (row.hasCheck() && row.checked)) std::printf("  err %.3g", row.error);
    if (row.hasCheck()) std::printf(" [%s, bound %.3g]", checkStatus(row).c_str(), row.errorBound);
    else std::printf(" [%s]", checkStatus(row).c_str());
    if (!row.note.empty()) std::printf("  %s", row.note.c_str());
    std::printf("\n");
    std::fflush(stdout);
}

std::string Report::toMarkdown() const {
    std::ostringstream out;
    out << "# " << m_title << "\n\n";
    out << "- Device: " << m_device << "\n";
    out << "- Date: " << utcTimestamp() << "\n";
    if (m_peakGBs > 0) out << "- Reference bandwidth: " << fixedText(m_peakGBs, 1) << " GB/s\n";
    out << "\n| benchmark | variant | median ms | min ms | max ms | repeats | GB/s |";
    if (m_peakGBs > 0) out << " % of ref BW |";
    // Every row has a check or says why it has none: the check column is in every table.
    out << " GFLOP/s | vs baseline | error | check | note |\n";
    out << "|---|---|---:|---:|---:|---:|---:|";
    if (m_peakGBs > 0) out << "---:|";
    out << "---:|---:|---:|---|---|\n";
    for (const Row& row : m_rows) {
        out << "| " << markdownCell(row.benchmark) << " | " << markdownCell(row.variant) << (row.isBaseline ? " (baseline)" : "")
            << " | " << fixedText(row.time.medianMs, 4) << " | " << fixedText(row.time.minMs, 4) << " | "
            << fixedText(row.time.maxMs, 4) << " | " << row.time.repeats << " | "
            << (row.bytes > 0 ? fixedText(row.gbPerSecond(), 1) : "-") << " |";
        if (m_peakGBs > 0) out << " " << (row.bytes > 0 ? fixedText(100.0 * row.gbPerSecond() / m_peakGBs, 1) : "-") << " |";
        const double speedup = speedupOverBaseline(row);
        out << " " << (row.flops > 0 ? fixedText(row.gflopPerSecond(), 1) : "-") << " | "
            << (row.isBaseline ? "1.00x" : speedup > 0 ? fixedText(speedup, 2) + "x" : "-") << " | "
            << (row.error != 0 || (row.hasCheck() && row.checked) ? general(row.error) : "-") << " | ";
        out << markdownCell(checkCell(row)) << " | ";
        out << markdownCell(row.note) << " |\n";
    }
    {
        const std::size_t failed = failures().size();
        out << "\nChecks: " << (failed ? std::to_string(failed) + " of the rows FAILED (or carry no check)" : "every checked row within its bound, the others informational")
            << ".\n";
    }
    if (!m_targets.empty()) {
        out << "\n## Targets\n\n| target | measured | status |\n|---|---|---|\n";
        for (const Target& target : m_targets)
            out << "| " << markdownCell(target.goal) << " | " << markdownCell(target.measured.empty() ? "-" : target.measured)
                << " | " << toString(target.status) << " |\n";
    }
    return out.str();
}

std::string Report::toJson() const {
    std::ostringstream out;
    out << "{\n  \"title\": " << jsonString(m_title) << ",\n  \"device\": " << jsonString(m_device)
        << ",\n  \"date\": " << jsonString(utcTimestamp()) << ",\n  \"peakBandwidthGBs\": " << jsonNumber(m_peakGBs)
        << ",\n  \"results\": [";
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        const Row& row = m_rows[i];
        out << (i ? ",\n" : "\n") << "    {\"benchmark\": " << jsonString(row.benchmark)
            << ", \"variant\": " << jsonString(row.variant) << ", \"isBaseline\": " << (row.isBaseline ? "true" : "false")
            << ", \"medianMs\": " << jsonNumber(row.time.medianMs) << ", \"minMs\": " << jsonNumber(row.time.minMs)
            << ", \"maxMs\": " << jsonNumber(row.time.maxMs) << ", \"repeats\": " << row.time.repeats
            << ", \"bytes\": " << jsonNumber(row.bytes) << ", \"flops\": " << jsonNumber(row.flops)
            << ", \"gbPerSecond\": " << jsonNumber(row.gbPerSecond())
            << ", \"gflopPerSecond\": " << jsonNumber(row.gflopPerSecond())
            << ", \"speedupOverBaseline\": " << jsonNumber(speedupOverBaseline(row))
            << ", \"error\": " << jsonNumber(row.error);
        if (row.hasCheck())
            out << ", \"errorBound\": " << jsonNumber(row.errorBound) << ", \"checked\": " << (row.checked ? "true" : "false")
                << ", \"passed\": " << (row.passed() ? "true" : "false");
        else
            out << ", \"informational\": " << jsonString(row.informational) << ", \"passed\": " << (row.passed() ? "true" : "false");
        out << ", \"note\": " << jsonString(row.note) << "}";
    }
    out << (m_rows.empty() ? "]" : "\n  ]");
    if (!m_targets.empty()) {
        out << ",\n  \"targets\": [";
        for (std::size_t i = 0; i < m_targets.size(); ++i)
            out << (i ? ",\n" : "\n") << "    {\"goal\": " << jsonString(m_targets[i].goal)
                << ", \"measured\": " << jsonString(m_targets[i].measured) << ", \"status\": "
                << jsonString(toString(m_targets[i].status)) << "}";
        out << "\n  ]";
    }
    out << "\n}\n";
    return out.str();
}

void Report::printTargets() const {
    std::printf("\nTargets (%s):\n", m_title.c_str());
    if (m_targets.empty()) std::printf("  (none given)\n");
    std::size_t width = 6;
    for (const Target& target : m_targets) width = std::max(width, target.goal.size());
    for (const Target& target : m_targets)
        std::printf("  %-*s  %-16s %s\n", int(width), target.goal.c_str(), toString(target.status),
                    target.measured.empty() ? "-" : target.measured.c_str());
    std::fflush(stdout);
}

std::vector<Row> Report::failures() const {
    std::vector<Row> failed;
    for (const Row& row : m_rows)
        if (!row.passed()) failed.push_back(row);
    return failed;
}

int Report::printVerdict() const {
    const std::vector<Row> failed = failures();
    std::size_t checked = 0, informational = 0;
    for (const Row& row : m_rows) {
        checked += row.hasCheck() ? 1 : 0;
        informational += !row.hasCheck() && !row.informational.empty() ? 1 : 0;
    }
    for (const Row& row : failed)
        std::fprintf(stderr, "FAILED: %s / %s: %s (error %.3g, bound %.3g)%s%s\n", row.benchmark.c_str(), row.variant.c_str(),
                     checkStatus(row).c_str(), row.error, row.errorBound, row.note.empty() ? "" : ": ", row.note.c_str());
    if (failed.empty())
        std::printf("checks: all %zu checked rows within their bounds (%zu informational rows)\n", checked, informational);
    else
        std::printf("checks: %zu of %zu rows FAILED or carry no check (listed on stderr)\n", failed.size(), m_rows.size());
    std::fflush(stdout);
    std::fflush(stderr);
    return exitCode();
}

void Report::write(const std::string& stem) const {
    writeFileAtomically(stem + ".md", toMarkdown());
    writeFileAtomically(stem + ".json", toJson());
}

} // namespace spyglass::bench
