#pragma once
// The text a user sees for an exception from the compute library, the same in the window and in
// spyglass-cli. A DeviceError's what() begins with the source file and line of the failing call,
// which hides the point ("GPU out of memory: ..."); here the message comes first and the place last.
#include <QString>

#include <exception>

namespace spyglass::app {

QString errorText(const std::exception& error);

} // namespace spyglass::app
