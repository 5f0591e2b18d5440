#pragma once
// Shared by the method A commands (bitflag, matop, lu): reading a Matrix Market file into the bit-flag
// form, writing one back, and running on the chosen backend.
#include "cliargs.h"
#include "inputmatrix.h"

#include "core/containerexport.h"

#include "spyglass/bitflag.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <QFile>

#include <chrono>
#include <string>

namespace spyglass::cli::bitflagcli {

inline std::string pathOf(const QString& file) { return QFile::encodeName(file).toStdString(); }

inline BitFlagMatrix<double> loadBitFlag(const QString& file, const BitFlagOptions& options) {
    const std::string path = pathOf(file);
    const Matrix m = readInputMatrix(path);
    if (m.isComplex()) throw InputError(path + ": complex matrices are not supported by the bit-flag format");
    app::checkBitFlagBudget(m, path);  // the flags take rows x cols bits whatever the nonzeros
    return encodeBitFlag(toCsr<double>(m), options);
}

inline void writeBitFlag(const QString& file, const BitFlagMatrix<double>& m) {
    writeMatrixMarket(pathOf(file), fromCsr(decodeBitFlag(m)));
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

template <typename F>
double millisecondsOf(F&& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace spyglass::cli::bitflagcli
