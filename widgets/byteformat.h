#pragma once
#include <QString>

namespace spyglass::widgets {

// "1.62 MB", "153.5 kB", "812 B": decimal units, as the benchmark tables print them.
QString formatBytes(double bytes);

} // namespace spyglass::widgets
