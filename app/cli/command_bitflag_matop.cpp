// spyglass-cli matop add|sub|mul A B: method A arithmetic in bit-flag form on the CPU reference or CUDA.
// mul stores A by rows and B by columns, as the seed multiplies them. --backend cusparse runs the
// vendor's answer on CSR instead (csrgeam2, SpGEMM; fp32 as its fastest paths), for comparison.
#include "bitflag_cli.h"
#include "command.h"
#include "libraryerrors.h"
#include "timingreport.h"

#include "spyglass/bitflag_baselines.h"

#include <cstdio>

namespace spyglass::cli {
namespace {

int runCusparse(const QString& op, const QString& fileA, const QString& fileB, const QString& out, const TimingOptions& timing) {
    const auto load = [](const QString& file) {
        const std::string path = bitflagcli::pathOf(file);
        const Matrix m = readInputMatrix(path);
        if (m.isComplex()) throw InputError(path + ": complex matrices are not supported by this comparison (fp32 real)");
        return toCsr<float>(m);
    };
    const CsrMatrix<float> a = load(fileA), b = load(fileB);
    CsrMatrix<float> c;
    BitFlagRunOptions vendor;
    vendor.backend = BitFlagBackend::Vendor;
    Measurement measured;
    vendor.measured = &measured;
    vendor.timing = timing;
    if (op == QLatin1String("mul")) c = csrMultiply(a, b, vendor);
    else if (op == QLatin1String("sub")) c = csrSub(a, b, vendor);
    else c = csrAdd(a, b, vendor);
    std::printf("operation       %s on cuSPARSE (CSR, fp32)\n", qPrintable(op));
    std::printf("A               %d x %d, %lld nonzeros\n", a.rows, a.cols, static_cast<long long>(a.nnz()));
    std::printf("B               %d x %d, %lld nonzeros\n", b.rows, b.cols, static_cast<long long>(b.nnz()));
    std::printf("C               %d x %d, %lld stored entries\n", c.rows, c.cols, static_cast<long long>(c.nnz()));
    printTiming(measured, 0);
    if (!out.isEmpty()) {
        writeMatrixMarket(bitflagcli::pathOf(out), fromCsr(c));
        std::printf("wrote           %s\n", qPrintable(out));
    }
    return ExitOk;
}

int runMatop(const QStringList& args) {
    ArgParser parser(args);
    const BitFlagBackend backend = bitflagcli::backendOf(parser, QStringLiteral("cusparse"));
    const bool cuda = backend == BitFlagBackend::Cuda;
    const QString out = parser.value("-o|--out", QString());
    const TimingOptions timing = takeTiming(parser);
    const QStringList positionals = parser.positionals(3, 3, "add|sub|mul A B");
    const QString op = positionals[0];
    if (op != QLatin1String("add") && op != QLatin1String("sub") && op != QLatin1String("mul"))
        throw UsageError{QStringLiteral("unknown operation '%1' (add, sub or mul)").arg(op)};
    printActiveBackend("matop", bitflagcli::nameOf(backend, QStringLiteral("cusparse")));
    return printingLibraryErrors("matop", [&]() -> int {
        if (backend == BitFlagBackend::Vendor) return runCusparse(op, positionals[1], positionals[2], out, timing);
        BitFlagOptions rowMajor, second;
        second.order = op == QLatin1String("mul") ? BitFlagOrder::ColumnMajor : BitFlagOrder::RowMajor;
        const BitFlagMatrix<double> a = bitflagcli::loadBitFlag(positionals[1], rowMajor);
        const BitFlagMatrix<double> b = bitflagcli::loadBitFlag(positionals[2], second);
        BitFlagMatrix<double> c;
        BitFlagRunOptions options;
        options.backend = backend;
        Measurement measured;
        if (cuda) {
            options.measured = &measured;
            options.timing = timing;
        }
        const double ms = bitflagcli::millisecondsOf([&] {
            if (op == QLatin1String("add")) c = bitFlagAdd(a, b, options);
            else if (op == QLatin1String("sub")) c = bitFlagSub(a, b, options);
            else c = bitFlagMultiply(a, b, options);
        });
        std::printf("operation       %s on %s\n", qPrintable(op), cuda ? "CUDA (bit-flag kernels)" : "CPU reference");
        std::printf("A               %d x %d, %lld nonzeros\n", a.rows, a.cols, static_cast<long long>(a.nonzeros));
        std::printf("B               %d x %d, %lld nonzeros\n", b.rows, b.cols, static_cast<long long>(b.nonzeros));
        std::printf("C               %d x %d, %lld flagged entries\n", c.rows, c.cols, static_cast<long long>(c.nonzeros));
        if (!cuda) {  // the CPU reference: one run, steady clock
            measured.clock = TimingClock::SteadyClock;
            measured.medianMs = measured.minMs = measured.maxMs = ms;
            measured.repeats = 1;
        }
        printTiming(measured, 0);
        if (!out.isEmpty()) {
            bitflagcli::writeBitFlag(out, c);
            std::printf("wrote           %s\n", qPrintable(out));
        }
        return ExitOk;
    });
}

} // namespace

SPYGLASS_CLI_COMMAND(matop, "matop", "matop add|sub|mul A B [--backend cpu|cuda|cusparse] [--out C.mtx] [--warmup W] [--repeats N]",
                     "Method A: add, subtract or multiply two matrices in bit-flag form (cusparse: the vendor on CSR, fp32).", runMatop);

} // namespace spyglass::cli
