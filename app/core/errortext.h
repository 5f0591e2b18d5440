#pragma once
// The text a user sees for an exception from the compute library, the same in the window and in
// spyglass-cli. A DeviceError's what() begins with the source file and line of the failing call,
// which hides the point ("GPU out of memory: ..."); here the message comes first and the place last.
#include <QString>

#include <exception>

namespace spyglass::app {

QString errorText(const std::exception& error);

// Whether the compute library threw it (spyglass::Error and what derives from it: bad input, a device
// failure, cancellation), so that a caller may report it as the library's own message.
bool isLibraryError(const std::exception& error);
// Whether it is the library's cancellation (spyglass::CancelledError).
bool isCancellation(const std::exception& error);

} // namespace spyglass::app
