#include "byteformat.h"

namespace spyglass::widgets {

QString formatBytes(double bytes) {
    if (bytes >= 1e9) return QStringLiteral("%1 GB").arg(bytes / 1e9, 0, 'f', 2);
    if (bytes >= 1e6) return QStringLiteral("%1 MB").arg(bytes / 1e6, 0, 'f', 2);
    if (bytes >= 1e3) return QStringLiteral("%1 kB").arg(bytes / 1e3, 0, 'f', 1);
    return QStringLiteral("%1 B").arg(bytes);
}

} // namespace spyglass::widgets
