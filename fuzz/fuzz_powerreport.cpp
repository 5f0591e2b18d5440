// libFuzzer harness for the reader of spyglass-cli power reports (app/core/scalereport.h), which the
// GUI's Scale tab opens. Property: any byte string is either a report whose partitions cover its rows
// in order, or it throws InputError naming the problem - never a crash or a sanitizer report.
#include "core/scalereport.h"
#include "spyglass/error.h"

#include <QByteArray>
#include <QString>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    try {
        const spyglass::app::PowerReport report = spyglass::app::parsePowerReport(bytes, QStringLiteral("fuzz.json"));
        int next = 0;
        for (const auto& part : report.partitions) {
            if (part.rowBegin != next || part.rowEnd < part.rowBegin) std::abort();
            next = part.rowEnd;
        }
        if (next != report.rows || report.partitions.isEmpty()) std::abort();
    } catch (const spyglass::InputError&) {
        // rejected with a message: fine
    }
    return 0;
}
