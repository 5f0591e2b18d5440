#pragma once
// Atomic file writing: the data goes to a temporary file beside the target, is flushed and synced,
// then renamed over the target. A crash or a full disk leaves the old file (or none), never half.
#include <string>
#include <string_view>

namespace spyglass {

// Throws Error naming the path and the system error on failure; the target is untouched then.
void writeFileAtomically(const std::string& path, std::string_view contents);

} // namespace spyglass
