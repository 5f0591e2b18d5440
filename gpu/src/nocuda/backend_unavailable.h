#pragma once
// The one error the stubs of a build without CUDA throw when a device backend is asked for, so that
// every method words it the same way.
#include "spyglass/error.h"

#include <string>

namespace spyglass::nocuda {

// "<what>: the <backend> backend needs a CUDA build and a GPU; this build has no CUDA<tail>"
[[noreturn]] inline void backendUnavailable(const std::string& what, const char* backend,
                                            const char* tail = " (use --backend cpu)") {
    throw BackendUnavailableError(what + ": the " + backend + " backend needs a CUDA build and a GPU; this build has no CUDA" +
                                  tail);
}

} // namespace spyglass::nocuda
