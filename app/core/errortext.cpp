#include "errortext.h"

#include "spyglass/error.h"

#include <QFileInfo>

#include <cstring>
#include <string>

namespace spyglass::app {

QString errorText(const std::exception& error) {
    if (const auto* device = dynamic_cast<const DeviceError*>(&error)) {
        // DeviceError's what() is "FILE:LINE: message" (spyglass/error.h); take the message back out.
        const std::string what = device->what();
        const std::string place = std::string(device->file()) + ":" + std::to_string(device->line()) + ": ";
        if (what.compare(0, place.size(), place) == 0) {
            return QStringLiteral("%1 (at %2:%3)")
                .arg(QString::fromStdString(what.substr(place.size())), QFileInfo(QString::fromUtf8(device->file())).fileName())
                .arg(device->line());
        }
    }
    return QString::fromUtf8(error.what());
}

bool isLibraryError(const std::exception& error) { return dynamic_cast<const Error*>(&error) != nullptr; }

bool isCancellation(const std::exception& error) { return dynamic_cast<const CancelledError*>(&error) != nullptr; }

} // namespace spyglass::app
