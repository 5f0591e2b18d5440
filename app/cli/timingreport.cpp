// The time lines of the timing commands (timingreport.h).
#include "timingreport.h"

#include "core/timingtext.h"

#include <QJsonDocument>

#include <cstdio>

namespace spyglass::cli {

TimingOptions takeTiming(ArgParser& parser) {
    TimingOptions timing;
    timing.warmup = static_cast<int>(parser.integer(QStringLiteral("--warmup"), timing.warmup, 0, 100000));
    timing.repeats = static_cast<int>(parser.integer(QStringLiteral("--repeats"), timing.repeats, 1, 100000));
    return timing;
}

void printTiming(const Measurement& m, double bytesMoved, std::FILE* out) {
    if (!m.measured()) return;
    if (m.repeats == 1)
        std::fprintf(out, "compute time    %s, %s\n", qPrintable(app::timingText(m)), toString(m.clock));
    else
        std::fprintf(out, "compute time    %s  median (min-max) of %d timed runs after %d warm-up, %s%s\n",
                     qPrintable(app::timingText(m)), m.repeats, m.warmup, toString(m.clock), m.cacheFlushed ? ", L2 flushed" : "");
    if (m.coldMs >= 0) std::fprintf(out, "first call      %.4f ms (cold: module loading and start-up; not in the median)\n", m.coldMs);
    if (m.setupMs >= 0) std::fprintf(out, "set-up time     %.4f ms (buffers, handles, workspaces; apart)\n", m.setupMs);
    if (m.uploadMs >= 0) std::fprintf(out, "upload          %.4f ms\n", m.uploadMs);
    if (m.downloadMs >= 0) std::fprintf(out, "download        %.4f ms\n", m.downloadMs);
    const QString bandwidth = app::bandwidthText(bytesMoved, m);
    if (!bandwidth.isEmpty())
        std::fprintf(out, "bandwidth       %.1f GB/s, %s\n", bytesMoved / (m.medianMs * 1e6), qPrintable(bandwidth));
}

void printSpeedup(const QString& vendorName, const Measurement& vendor, const Measurement& ours, std::FILE* out) {
    const double speedup = app::speedupOver(vendor, ours);
    if (speedup <= 0) return;
    std::fprintf(out, "vs vendor       %.2fx %s (%s)\n", speedup, qPrintable(vendorName), qPrintable(app::timingText(vendor)));
}

void printWallTime(double totalMs, int chunks, std::size_t devices, std::FILE* out) {
    const QString split = devices > 0 ? QStringLiteral(" (%1 chunks streamed over %2 GPU(s), page-locking in the set-up)").arg(chunks).arg(devices)
                        : chunks > 1  ? QStringLiteral(" (%1 chunks to fit the GPU)").arg(chunks)
                                      : QString();
    std::fprintf(out, "wall time       %.4f ms (the whole call: set-up, copies, every timed run)%s\n", totalMs, qPrintable(split));
}

QJsonObject measuredJson(const Measurement& m, double bytesMoved) {
    QJsonObject o;
    o[QStringLiteral("timing")] = app::timingJson(m);
    o[QStringLiteral("bytes_moved")] = bytesMoved;
    if (m.clock == TimingClock::CudaEvents) o[QStringLiteral("copy_bandwidth_share")] = app::bandwidthShare(bytesMoved, m);
    return o;
}

QJsonObject batchRunJson(const char* command, const app::BatchRunFigures& run, const QJsonObject& fields) {
    QJsonObject o = measuredJson(run.timing, run.bytesMoved);
    o[QStringLiteral("command")] = QLatin1String(command);
    o[QStringLiteral("batch")] = run.batch;
    o[QStringLiteral("type")] = run.precision;
    o[QStringLiteral("backend")] = run.backend;
    o[QStringLiteral("device")] = run.device;
    if (!run.streamNote.isEmpty()) o[QStringLiteral("stream_note")] = run.streamNote;
    for (auto field = fields.begin(); field != fields.end(); ++field) o[field.key()] = field.value();
    return o;
}

void addVendorJson(QJsonObject& o, const Measurement& ours, const Measurement& vendor, double vendorBytes, const char* nameKey,
                   const QString& name) {
    if (!vendor.measured()) return;
    QJsonObject v = measuredJson(vendor, vendorBytes);
    v[QLatin1String(nameKey)] = name;
    o[QStringLiteral("vendor")] = v;
    o[QStringLiteral("speedup_over_vendor")] = app::speedupOver(vendor, ours);
}

void printJson(const QJsonObject& object) {
    std::printf("%s", QJsonDocument(object).toJson(QJsonDocument::Indented).constData());
}

} // namespace spyglass::cli
