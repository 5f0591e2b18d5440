// spyglass-cli lu FILE: method A's LU without pivoting (the seed) on the CPU reference or the CUDA
// shared-memory kernel; a zero or tiny pivot fails naming the step. --pivot: LU with partial pivoting
// (the CPU reference, the blocked GPU LU for large n, or cuSOLVER getrf with --backend cusolver, which
// always pivots), reporting ||PA - LU|| / ||A|| up to n = 2000.
#include "bitflag_cli.h"
#include "command.h"
#include "libraryerrors.h"
#include "timingreport.h"

#include <cstdio>
#include <type_traits>

namespace spyglass::cli {
namespace {

// Where the two forms of LU meet: the options of the run, the timed factorization and the report,
// around the lines only the pivoted form has (`details`: rows moved, residual).
struct LuRun {
    BitFlagBackend backend;
    double tolerance;
    QString outL, outU;
    TimingOptions timing;  // GPU backends: --warmup / --repeats
};

template <typename Factor, typename Details>
int factorAndReport(const BitFlagMatrix<double>& a, const LuRun& run, Factor factor, const char* backendText, Details details) {
    BitFlagRunOptions options;
    options.backend = run.backend;
    options.tolerance = run.tolerance;
    // GPU backends: the device work measured by the engine; the CPU reference: one run, steady clock.
    Measurement timing;
    if (run.backend != BitFlagBackend::Reference) {
        options.measured = &timing;
        options.timing = run.timing;
    }
    std::invoke_result_t<Factor, const BitFlagMatrix<double>&, const BitFlagRunOptions&> lu;
    const double ms = bitflagcli::millisecondsOf([&] { lu = factor(a, options); });
    if (run.backend == BitFlagBackend::Reference) {
        timing.clock = TimingClock::SteadyClock;
        timing.medianMs = timing.minMs = timing.maxMs = ms;
        timing.repeats = 1;
    }
    std::printf("matrix          %d x %d, %lld nonzeros\n", a.rows, a.cols, static_cast<long long>(a.nonzeros));
    std::printf("backend         %s\n", backendText);
    std::printf("L               %lld nonzeros (unit diagonal stored)\n", static_cast<long long>(lu.lower.nonzeros));
    std::printf("U               %lld nonzeros\n", static_cast<long long>(lu.upper.nonzeros));
    details(lu);
    printTiming(timing, 0);
    bitflagcli::writeResult(lu.lower, run.outL);
    bitflagcli::writeResult(lu.upper, run.outU);
    return ExitOk;
}

int runPivotedLu(const BitFlagMatrix<double>& a, const LuRun& run) {
    using Backend = BitFlagBackend;
    const char* backendText = run.backend == Backend::Cuda     ? "CUDA (blocked LU with partial pivoting, dense)"
                              : run.backend == Backend::Vendor ? "cuSOLVER getrf (partial pivoting, dense)"
                                                               : "CPU reference (partial pivoting)";
    const auto factor = [](const BitFlagMatrix<double>& m, const BitFlagRunOptions& options) { return app::luWithPartialPivoting(m, options); };
    return factorAndReport(a, run, factor, backendText, [&a](const BitFlagPivotedLu<double>& lu) {
        Index moved = 0;
        for (Index i = 0; i < a.rows; ++i) moved += lu.rowOrder[std::size_t(i)] != i;
        std::printf("rows moved      %d\n", moved);
        if (a.rows <= 2000) std::printf("residual        %.3g (||PA - LU|| / ||A||)\n", app::pivotedLuResidual(a, lu));
    });
}

int runLu(const QStringList& args) {
    ArgParser parser(args);
    LuRun run;
    run.backend = bitflagcli::backendOf(parser, QStringLiteral("cusolver"));
    run.outL = parser.value("--out-l", QString());
    run.outU = parser.value("--out-u", QString());
    run.tolerance = parser.number("--tolerance", -1.0);
    run.timing = takeTiming(parser);
    const bool pivot = parser.flag("--pivot");
    const QString file = parser.positionals(1, 1, "FILE").front();
    printActiveBackend("lu", bitflagcli::nameOf(run.backend, QStringLiteral("cusolver")));
    return printingLibraryErrors("lu", [&]() -> int {
        const BitFlagMatrix<double> a = bitflagcli::loadBitFlag(file, BitFlagOptions{});
        if (pivot || run.backend == BitFlagBackend::Vendor) return runPivotedLu(a, run);
        const auto factor = [](const BitFlagMatrix<double>& m, const BitFlagRunOptions& options) { return app::luWithoutPivoting(m, options); };
        const char* backendText = run.backend == BitFlagBackend::Cuda ? "CUDA (one block, dense in shared memory)" : "CPU reference";
        return factorAndReport(a, run, factor, backendText, [](const BitFlagLu<double>&) {});
    });
}

} // namespace

SPYGLASS_CLI_COMMAND(lu, "lu", "lu FILE [--backend cpu|cuda|cusolver] [--pivot] [--tolerance T] [--out-l L.mtx] [--out-u U.mtx] [--warmup W] [--repeats N]",
                     "Method A: LU of a square matrix, without pivoting (the seed; reports a zero or tiny pivot by step) "
                     "or with --pivot partial pivoting (L and U of P A); --backend cusolver runs cuSOLVER getrf, which pivots.",
                     runLu);

} // namespace spyglass::cli
