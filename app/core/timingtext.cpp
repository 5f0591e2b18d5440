// Measurements as text and JSON, one wording for the GUI and the CLI (timingtext.h).
#include "timingtext.h"

namespace spyglass::app {

QString millisecondsText(double ms) {
    if (ms < 0) return QStringLiteral("—");
    return QString::number(ms, 'f', ms < 0.1 ? 4 : ms < 10 ? 3 : 1);
}

QString timingText(const Measurement& m) {
    if (!m.measured()) return QStringLiteral("—");
    if (m.repeats == 1) return QStringLiteral("%1 ms (one run)").arg(millisecondsText(m.medianMs));
    return QStringLiteral("%1 ms (%2–%3)").arg(millisecondsText(m.medianMs), millisecondsText(m.minMs), millisecondsText(m.maxMs));
}

QString timingTooltip(const Measurement& m) {
    return QString::fromStdString(m.howMeasured());
}

double speedupOver(const Measurement& baseline, const Measurement& ours) {
    if (!baseline.measured() || !ours.measured() || ours.medianMs <= 0) return 0;
    return baseline.medianMs / ours.medianMs;
}

QString speedupText(double speedup) {
    if (speedup <= 0) return {};
    return speedup >= 1 ? QStringLiteral("%1× the vendor").arg(speedup, 0, 'f', 2)
                        : QStringLiteral("%1× (slower than the vendor)").arg(speedup, 0, 'f', 2);
}

double bandwidthShare(double bytes, const Measurement& m) {
    return m.clock == TimingClock::CudaEvents ? copyBandwidthShare(bytes, m.medianMs) : 0.0;
}

QString bandwidthText(double bytes, const Measurement& m) {
    const double share = bandwidthShare(bytes, m);
    if (share <= 0) return {};
    return QStringLiteral("%1 % of copy bandwidth").arg(100 * share, 0, 'f', 0);
}

QJsonObject timingJson(const Measurement& m) {
    QJsonObject o;
    o[QStringLiteral("median_ms")] = m.medianMs;
    o[QStringLiteral("min_ms")] = m.minMs;
    o[QStringLiteral("max_ms")] = m.maxMs;
    o[QStringLiteral("repeats")] = m.repeats;
    o[QStringLiteral("warmup")] = m.warmup;
    o[QStringLiteral("clock")] = QString::fromLatin1(toString(m.clock));
    o[QStringLiteral("l2_flushed")] = m.cacheFlushed;
    auto optional = [&](const char* key, double ms) {
        if (ms >= 0) o[QString::fromLatin1(key)] = ms;
    };
    optional("cold_ms", m.coldMs);
    optional("setup_ms", m.setupMs);
    optional("upload_ms", m.uploadMs);
    optional("download_ms", m.downloadMs);
    return o;
}

} // namespace spyglass::app
