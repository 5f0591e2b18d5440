#pragma once
// Shared by the method A commands (bitflag, matop, lu): reading a matrix file into the bit-flag form
// (app/core/bitflagops.h) and the --backend choice.
#include "cliargs.h"
#include "inputmatrix.h"

#include "core/bitflagops.h"

#include <chrono>
#include <cstdio>

namespace spyglass::cli::bitflagcli {

inline BitFlagMatrix<double> loadBitFlag(const QString& file, const BitFlagOptions& options) {
    return app::encodeBitFlagOperand(readInputMatrix(file), file, options);
}

// --backend: cpu (the reference), cuda (Spyglass's kernels) or the vendor library named (cusparse,
// cusolver) where the command has one: the backend of the dispatched entries.
inline BitFlagBackend backendOf(ArgParser& parser, const QString& vendor = QString()) {
    QStringList allowed{QStringLiteral("cpu"), QStringLiteral("cuda")};
    if (!vendor.isEmpty()) allowed << vendor;
    const QString chosen = parser.choice("--backend", allowed, QStringLiteral("cpu"));
    return chosen == QLatin1String("cpu")    ? BitFlagBackend::Reference
           : chosen == QLatin1String("cuda") ? BitFlagBackend::Cuda
                                             : BitFlagBackend::Vendor;
}
// The --backend text of a choice (for printActiveBackend).
inline QString nameOf(BitFlagBackend backend, const QString& vendor) {
    return backend == BitFlagBackend::Vendor ? vendor : QString::fromLatin1(toString(backend));
}
inline bool cudaBackend(ArgParser& parser) { return backendOf(parser) == BitFlagBackend::Cuda; }

// --out FILE: the result written back as a matrix file (a checked export) and the line that says so.
template <typename Result>
void writeResult(const Result& result, const QString& out, const char* how = "") {
    if (out.isEmpty()) return;
    app::exportResultMatrix(result, out);
    std::printf("wrote           %s%s\n", qPrintable(out), how);
}

template <typename F>
double millisecondsOf(F&& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace spyglass::cli::bitflagcli
