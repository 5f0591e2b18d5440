#pragma once
#include <QString>

namespace spyglass::widgets {

// "1.62 MB", "153.5 kB", "812 B": decimal units, as the benchmark tables print them.
QString formatBytes(double bytes);
// A density as a percentage with the digits its size needs: "0.0123 %", "4.56 %", "37.5 %".
QString formatPercent(double fraction);

} // namespace spyglass::widgets
