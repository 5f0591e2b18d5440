// spyglass-cli lu FILE: method A's LU without pivoting (the seed) on the CPU reference or the CUDA
// shared-memory kernel; a zero or tiny pivot fails naming the step. --pivot: LU with partial pivoting
// (the CPU reference, the blocked GPU LU for large n, or cuSOLVER getrf with --backend cusolver, which
// always pivots), reporting ||PA - LU|| / ||A|| up to n = 2000.
#include "bitflag_cli.h"
#include "command.h"
#include "core/errortext.h"

#include <cstdio>

namespace spyglass::cli {
namespace {

void writeFactors(const QString& outL, const QString& outU, const BitFlagMatrix<double>& lower, const BitFlagMatrix<double>& upper) {
    if (!outL.isEmpty()) {
        bitflagcli::writeBitFlag(outL, lower);
        std::printf("wrote           %s\n", qPrintable(outL));
    }
    if (!outU.isEmpty()) {
        bitflagcli::writeBitFlag(outU, upper);
        std::printf("wrote           %s\n", qPrintable(outU));
    }
}

int runPivotedLu(const BitFlagMatrix<double>& a, BitFlagBackend backend, double tolerance, const QString& outL,
                 const QString& outU) {
    using Backend = BitFlagBackend;
    BitFlagPivotedLu<double> lu;
    BitFlagRunOptions options;
    options.backend = backend;
    options.tolerance = tolerance;
    const double ms = bitflagcli::millisecondsOf([&] { lu = bitFlagLuPivoted(a, options); });
    std::printf("matrix          %d x %d, %lld nonzeros\n", a.rows, a.cols, static_cast<long long>(a.nonzeros));
    std::printf("backend         %s\n", backend == Backend::Cuda     ? "CUDA (blocked LU with partial pivoting, dense)"
                                    : backend == Backend::Vendor ? "cuSOLVER getrf (partial pivoting, dense)"
                                                                 : "CPU reference (partial pivoting)");
    std::printf("L               %lld nonzeros (unit diagonal stored)\n", static_cast<long long>(lu.lower.nonzeros));
    std::printf("U               %lld nonzeros\n", static_cast<long long>(lu.upper.nonzeros));
    Index moved = 0;
    for (Index i = 0; i < a.rows; ++i) moved += lu.rowOrder[std::size_t(i)] != i;
    std::printf("rows moved      %d\n", moved);
    if (a.rows <= 2000) std::printf("residual        %.3g (||PA - LU|| / ||A||)\n", bitFlagLuResidual(a, lu));
    std::printf("time            %.3f ms\n", ms);
    writeFactors(outL, outU, lu.lower, lu.upper);
    return ExitOk;
}

int runLu(const QStringList& args) {
    ArgParser parser(args);
    const BitFlagBackend backend = bitflagcli::backendOf(parser, QStringLiteral("cusolver"));
    const bool cuda = backend == BitFlagBackend::Cuda;
    const QString outL = parser.value("--out-l", QString());
    const QString outU = parser.value("--out-u", QString());
    const double tolerance = parser.number("--tolerance", -1.0);
    const bool pivot = parser.flag("--pivot");
    const QString file = parser.positionals(1, 1, "FILE").front();
    printActiveBackend("lu", bitflagcli::nameOf(backend, QStringLiteral("cusolver")));
    try {
        const BitFlagMatrix<double> a = bitflagcli::loadBitFlag(file, BitFlagOptions{});
        if (pivot || backend == BitFlagBackend::Vendor) return runPivotedLu(a, backend, tolerance, outL, outU);
        BitFlagLu<double> lu;
        BitFlagRunOptions options;
        options.backend = backend;
        options.tolerance = tolerance;
        const double ms = bitflagcli::millisecondsOf([&] { lu = bitFlagLu(a, options); });
        std::printf("matrix          %d x %d, %lld nonzeros\n", a.rows, a.cols, static_cast<long long>(a.nonzeros));
        std::printf("backend         %s\n", cuda ? "CUDA (one block, dense in shared memory)" : "CPU reference");
        std::printf("L               %lld nonzeros (unit diagonal stored)\n", static_cast<long long>(lu.lower.nonzeros));
        std::printf("U               %lld nonzeros\n", static_cast<long long>(lu.upper.nonzeros));
        std::printf("time            %.3f ms\n", ms);
        writeFactors(outL, outU, lu.lower, lu.upper);
    } catch (const Error& e) {
        std::fprintf(stderr, "spyglass-cli lu: %s\n", qPrintable(app::errorText(e)));
        return ExitFailure;
    }
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(lu, "lu", "lu FILE [--backend cpu|cuda|cusolver] [--pivot] [--tolerance T] [--out-l L.mtx] [--out-u U.mtx]",
                     "Method A: LU of a square matrix, without pivoting (the seed; reports a zero or tiny pivot by step) "
                     "or with --pivot partial pivoting (L and U of P A); --backend cusolver runs cuSOLVER getrf, which pivots.",
                     runLu);

} // namespace spyglass::cli
