#pragma once
// The method commands (bitflag, matop, lu, svd, invert) print a library error as its text alone after
// the command's name and exit 1: the text already says what failed, so the "error:" that main adds to
// other exceptions would only repeat it. Usage errors and cancellation still reach main.
#include "command.h"
#include "core/errortext.h"

#include <cstdio>
#include <exception>

namespace spyglass::cli {

template <typename Body>
int printingLibraryErrors(const char* command, Body&& body) {
    try {
        return body();
    } catch (const std::exception& e) {
        if (!app::isLibraryError(e)) throw;
        std::fprintf(stderr, "spyglass-cli %s: %s\n", command, qPrintable(app::errorText(e)));
        return ExitFailure;
    }
}

} // namespace spyglass::cli
