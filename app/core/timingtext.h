#pragma once
// How every tab, table, chart, CLI line and JSON report shows a measurement (spyglass/measurement.h):
// the same words and fields everywhere, so that figures from different places can be compared.
#include "spyglass/measurement.h"

#include <QJsonObject>
#include <QString>

namespace spyglass::app {

// "0.0123 ms (0.0120–0.0131)": median and range of the timed runs; "—" when not measured.
QString timingText(const Measurement& m);
// Milliseconds with enough digits for microsecond kernels: "0.0123", "12.35"; "—" below zero.
QString millisecondsText(double ms);
// The tooltip beside every shown time: how it was measured, and what was kept apart.
QString timingTooltip(const Measurement& m);
// baseline / ours as "3.21× the vendor" or "0.54× (slower than the vendor)"; empty when either is missing.
double speedupOver(const Measurement& baseline, const Measurement& ours);
QString speedupText(double speedup);
// `bytes` moved in the median time as a share of the device's measured copy bandwidth: 0 for a time
// not taken by CUDA events, or without a device ceiling.
double bandwidthShare(double bytes, const Measurement& m);
// "82 % of copy bandwidth" for `bytes` moved in the median time; empty without a device ceiling.
QString bandwidthText(double bytes, const Measurement& m);
// The JSON form, the same in every report: median_ms, min_ms, max_ms, repeats, warmup, cold_ms,
// setup_ms, upload_ms, download_ms (the last four omitted when not measured), clock, l2_flushed.
QJsonObject timingJson(const Measurement& m);

} // namespace spyglass::app
