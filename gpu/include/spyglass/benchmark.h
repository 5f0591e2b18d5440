#pragma once
// The benchmark harness every method's benchmark program uses: warm-up, N timed repeats, median;
// our kernel and the vendor library on the same data in one run; ratio and achieved GB/s printed;
// results written as JSON and Markdown. Timing itself is the caller's: each run callback returns
// the milliseconds it measured (CUDA events for GPU work, steady_clock for CPU work). Rows may carry
// a correctness check (Row::setCheck) and the report the method's targets (Report::addTarget): a
// program ends with `report.printTargets(); return report.printVerdict();` so that a wrong result, or
// a check that did not run, makes it exit non-zero.
#include <functional>
#include <utility>
#include <string>
#include <vector>

namespace spyglass::bench {

struct TimingSummary {
    double medianMs = 0, minMs = 0, maxMs = 0;
    int repeats = 0;
};

// Runs `run` warmup times untimed, then `repeats` times; returns the median and spread.
TimingSummary measure(const std::function<double()>& run, int warmup = 3, int repeats = 20);

struct Row {
    std::string benchmark;   // e.g. "inverse 8x8 f32 batch 1000000"
    std::string variant;     // e.g. "spyglass warp-per-matrix", "cuBLAS getrf+getri"
    bool isBaseline = false; // the vendor row the others are compared with
    TimingSummary time{};    // members all have defaults: a row is built from its leading ones
    double bytes = 0;        // bytes that must move (the floor), for GB/s
    double flops = 0;        // useful floating-point operations, for GFLOP/s
    double error = 0;        // accuracy figure of the run (residual, relative error ...)
    std::string note{};
    // Pass/fail. A row with a bound passes only when its check ran (`checked`, set once the result
    // was compared) and error <= errorBound; a NaN error fails. A row without a check fails too,
    // unless it says why it has none (`informational`: a measured ceiling, a figure with no result to
    // compare): a timing nobody checked cannot slip into a table. Report::failures() lists the rows
    // that do not pass.
    double errorBound = -1;
    bool checked = false;
    std::string informational{};  // why this row carries no check; empty: it must have one
    bool hasCheck() const { return errorBound >= 0; }
    bool passed() const { return hasCheck() ? (checked && error <= errorBound) : !informational.empty(); }
    // Records a check that ran: its figure and the bound it must stay within.
    void setCheck(double measuredError, double bound) {
        error = measuredError;
        errorBound = bound;
        checked = true;
    }
    // Marks a row that has no result to check (e.g. the device's copy bandwidth), saying why.
    void setInformational(std::string why) { informational = std::move(why); }
    double gbPerSecond() const { return time.medianMs > 0 ? bytes / (time.medianMs * 1e6) : 0; }
    double gflopPerSecond() const { return time.medianMs > 0 ? flops / (time.medianMs * 1e6) : 0; }
};

// "ok", "FAILED (error above bound)", "NOT CHECKED" (a bound whose check never ran), "informational"
// or "NO CHECK" (a row that neither has a check nor says why: it fails).
std::string checkStatus(const Row& row);

// A goal from the method's document and what this run measured for it. The program states the goal,
// computes the figure from its own rows and says whether it is met; NotMeasured when this run did
// not include the case (e.g. a --quick or --only run). Targets are performance goals: one not met is
// a result, not a failure of the program.
struct Target {
    enum class Status { Met, NotMet, NotMeasured };
    std::string goal;      // "2-D Laplacian 4096^2 f32: >= 2.5x cuSPARSE"
    std::string measured;  // "2.31x (0.395 / 0.171 ms)"; empty when not measured
    Status status = Status::NotMeasured;
};
const char* toString(Target::Status status);

class Report {
public:
    Report(std::string title, std::string device);
    void add(const Row& row);
    // Prints the row at once (so a long run shows progress), with the ratio to the latest baseline
    // row of the same benchmark when there is one.
    void print(const Row& row) const;
    // Baseline median / this median for the same benchmark (>1 means faster than the vendor).
    double speedupOverBaseline(const Row& row) const;
    void setPeakBandwidth(double gbPerSecond) { m_peakGBs = gbPerSecond; }
    std::string toMarkdown() const;
    std::string toJson() const;
    // Writes <stem>.md and <stem>.json atomically.
    void write(const std::string& stem) const;
    const std::vector<Row>& rows() const { return m_rows; }

    // Targets: listed in the Markdown (a "Targets" table after the results) and the JSON ("targets").
    void addTarget(const Target& target) { m_targets.push_back(target); }
    void clearTargets() { m_targets.clear(); }
    const std::vector<Target>& targets() const { return m_targets; }
    // The targets table on stdout.
    void printTargets() const;

    // Rows that do not pass their check (error above the bound, or the check did not run).
    std::vector<Row> failures() const;
    // Each failure on stderr, and a one-line verdict on stdout; returns exitCode().
    int printVerdict() const;
    // 0 when every row passes, 1 otherwise: what a benchmark's main() returns.
    int exitCode() const { return failures().empty() ? 0 : 1; }

private:
    std::string m_title, m_device;
    double m_peakGBs = 0;
    std::vector<Row> m_rows;
    std::vector<Target> m_targets;
};

} // namespace spyglass::bench
