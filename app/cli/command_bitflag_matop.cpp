// spyglass-cli matop add|sub|mul A B: method A arithmetic in bit-flag form on the CPU reference or CUDA.
// mul stores A by rows and B by columns, as the seed multiplies them. --backend cusparse runs the
// vendor's answer on CSR instead (csrgeam2, SpGEMM; fp32 as its fastest paths), for comparison.
#include "bitflag_cli.h"
#include "command.h"
#include "libraryerrors.h"
#include "timingreport.h"

#include <cstdio>

namespace spyglass::cli {
namespace {

int runCusparse(app::BitFlagOp op, const QString& opName, const QString& fileA, const QString& fileB, const QString& out,
                const TimingOptions& timing) {
    const CsrMatrix<float> a = app::vendorCsrOperand(readInputMatrix(fileA), fileA);
    const CsrMatrix<float> b = app::vendorCsrOperand(readInputMatrix(fileB), fileB);
    BitFlagRunOptions vendor;
    vendor.backend = BitFlagBackend::Vendor;
    Measurement measured;
    vendor.measured = &measured;
    vendor.timing = timing;
    const CsrMatrix<float> c = app::vendorArithmetic(op, a, b, vendor);
    std::printf("operation       %s on cuSPARSE (CSR, fp32)\n", qPrintable(opName));
    std::printf("A               %d x %d, %lld nonzeros\n", a.rows, a.cols, static_cast<long long>(a.nnz()));
    std::printf("B               %d x %d, %lld nonzeros\n", b.rows, b.cols, static_cast<long long>(b.nnz()));
    std::printf("C               %d x %d, %lld stored entries\n", c.rows, c.cols, static_cast<long long>(c.nnz()));
    printTiming(measured, 0);
    bitflagcli::writeResult(c, out);
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
    const app::BitFlagOp operation = op == QLatin1String("add")   ? app::BitFlagOp::Add
                                     : op == QLatin1String("sub") ? app::BitFlagOp::Subtract
                                                                  : app::BitFlagOp::Multiply;
    printActiveBackend("matop", bitflagcli::nameOf(backend, QStringLiteral("cusparse")));
    return printingLibraryErrors("matop", [&]() -> int {
        if (backend == BitFlagBackend::Vendor) return runCusparse(operation, op, positionals[1], positionals[2], out, timing);
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
            c = app::bitFlagArithmetic(operation, a, b, options);
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
        bitflagcli::writeResult(c, out);
        return ExitOk;
    });
}

} // namespace

SPYGLASS_CLI_COMMAND(matop, "matop", "matop add|sub|mul A B [--backend cpu|cuda|cusparse] [--out C.mtx] [--warmup W] [--repeats N]",
                     "Method A: add, subtract or multiply two matrices in bit-flag form (cusparse: the vendor on CSR, fp32).", runMatop);

} // namespace spyglass::cli
