// spyglass-cli lu FILE: method A's LU without pivoting (the seed) on the CPU reference or the CUDA
// shared-memory kernel; a zero or tiny pivot fails naming the step.
#include "bitflag_cli.h"
#include "command.h"
#include "core/errortext.h"

#include <cstdio>

namespace spyglass::cli {
namespace {

int runLu(const QStringList& args) {
    ArgParser parser(args);
    const bool cuda = bitflagcli::cudaBackend(parser);
    const QString outL = parser.value("--out-l", QString());
    const QString outU = parser.value("--out-u", QString());
    const double tolerance = parser.number("--tolerance", -1.0);
    const QString file = parser.positionals(1, 1, "FILE").front();
    printActiveBackend("lu");
    try {
        const BitFlagMatrix<double> a = bitflagcli::loadBitFlag(file, BitFlagOptions{});
        BitFlagLu<double> lu;
        const double ms = bitflagcli::millisecondsOf([&] { lu = cuda ? bitFlagLuCuda(a, tolerance) : bitFlagLu(a, tolerance); });
        std::printf("matrix          %d x %d, %lld nonzeros\n", a.rows, a.cols, static_cast<long long>(a.nonzeros));
        std::printf("backend         %s\n", cuda ? "CUDA (one block, dense in shared memory)" : "CPU reference");
        std::printf("L               %lld nonzeros (unit diagonal stored)\n", static_cast<long long>(lu.lower.nonzeros));
        std::printf("U               %lld nonzeros\n", static_cast<long long>(lu.upper.nonzeros));
        std::printf("time            %.3f ms\n", ms);
        if (!outL.isEmpty()) {
            bitflagcli::writeBitFlag(outL, lu.lower);
            std::printf("wrote           %s\n", qPrintable(outL));
        }
        if (!outU.isEmpty()) {
            bitflagcli::writeBitFlag(outU, lu.upper);
            std::printf("wrote           %s\n", qPrintable(outU));
        }
    } catch (const Error& e) {
        std::fprintf(stderr, "spyglass-cli lu: %s\n", qPrintable(app::errorText(e)));
        return ExitFailure;
    }
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(lu, "lu", "lu FILE [--backend cpu|cuda] [--tolerance T] [--out-l L.mtx] [--out-u U.mtx]",
                     "Method A: LU without pivoting of a square matrix; reports a zero or tiny pivot by step.", runLu);

} // namespace spyglass::cli
