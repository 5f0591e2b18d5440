#include "gpumemorycap.h"

#include "spyglass/backend.h"

#include <QRegularExpression>

#include <limits>

namespace spyglass::app {

std::optional<std::uint64_t> parseByteSize(const QString& text) {
    static const QRegularExpression pattern(QStringLiteral("^\\s*(\\d+)\\s*(?:([KMGT])(?:i?B)?|B)?\\s*$"),
                                            QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch()) return std::nullopt;
    bool ok = false;
    const qulonglong number = match.captured(1).toULongLong(&ok);
    if (!ok) return std::nullopt;  // more digits than 64 bits hold
    const QString unit = match.captured(2).toUpper();
    const int shift = unit == QLatin1String("K") ? 10 : unit == QLatin1String("M") ? 20
                    : unit == QLatin1String("G") ? 30 : unit == QLatin1String("T") ? 40 : 0;
    if (shift && number > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
    return static_cast<std::uint64_t>(number) << shift;
}

std::uint64_t gpuMemoryCap() { return deviceMemoryCap(); }

QString describeGpuMemoryCap(std::uint64_t bytes) {
    if (bytes == 0) return QStringLiteral("no cap");
    if (bytes < 1024) return QStringLiteral("%1 bytes").arg(bytes);
    const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes) / 1024.0;
    int unit = 0;
    while (value >= 1024.0 && unit < 3) value /= 1024.0, ++unit;
    return QStringLiteral("%1 %2").arg(value, 0, 'f', value < 10 ? 2 : 1).arg(QLatin1String(units[unit]));
}

QString applyGpuMemoryCap(const std::optional<QString>& optionValue) {
    std::optional<std::uint64_t> cap;
    if (qEnvironmentVariableIsSet(kGpuMemoryCapVariable)) {
        const QString text = qEnvironmentVariable(kGpuMemoryCapVariable);
        cap = parseByteSize(text);
        if (!cap)
            return QStringLiteral("%1='%2' is not a byte count (e.g. 1048576, 512K, 64M, 2G; 0 = no cap)")
                .arg(QLatin1String(kGpuMemoryCapVariable), text);
    }
    if (optionValue) {
        cap = parseByteSize(*optionValue);
        if (!cap)
            return QStringLiteral("--gpu-memory-cap '%1' is not a byte count (e.g. 1048576, 512K, 64M, 2G; 0 = no cap)")
                .arg(*optionValue);
    }
    if (cap) {
        if (*cap > std::numeric_limits<std::size_t>::max()) return QStringLiteral("GPU memory cap too large");
        setDeviceMemoryCap(static_cast<std::size_t>(*cap));
    }
    return QString();
}

} // namespace spyglass::app
