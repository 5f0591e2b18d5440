#include "byteformat.h"

namespace spyglass::widgets {

QString formatBytes(double bytes) {
    if (bytes >= 1e9) return QStringLiteral("%1 GB").arg(bytes / 1e9, 0, 'f', 2);
    if (bytes >= 1e6) return QStringLiteral("%1 MB").arg(bytes / 1e6, 0, 'f', 2);
    if (bytes >= 1e3) return QStringLiteral("%1 kB").arg(bytes / 1e3, 0, 'f', 1);
    return QStringLiteral("%1 B").arg(bytes);
}

QString formatPercent(double fraction) {
    const double p = 100 * fraction;
    return QStringLiteral("%1 %").arg(p, 0, 'f', p < 0.1 ? 4 : p < 10 ? 2 : 1);
}

} // namespace spyglass::widgets
