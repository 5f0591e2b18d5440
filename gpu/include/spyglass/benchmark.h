#pragma once
// The benchmark harness every method's benchmark program uses: warm-up, N timed repeats, median;
// our kernel and the vendor library on the same data in one run; ratio and achieved GB/s printed;
// results written as JSON and Markdown. Timing itself is the caller's: each run callback returns
// the milliseconds it measured (CUDA events for GPU work, steady_clock for CPU work).
#include <functional>
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
    TimingSummary time;
    double bytes = 0;        // bytes that must move (the floor), for GB/s
    double flops = 0;        // useful floating-point operations, for GFLOP/s
    double error = 0;        // accuracy figure of the run (residual, relative error ...)
    std::string note;
    double gbPerSecond() const { return time.medianMs > 0 ? bytes / (time.medianMs * 1e6) : 0; }
    double gflopPerSecond() const { return time.medianMs > 0 ? flops / (time.medianMs * 1e6) : 0; }
};

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

private:
    std::string m_title, m_device;
    double m_peakGBs = 0;
    std::vector<Row> m_rows;
};

} // namespace spyglass::bench
