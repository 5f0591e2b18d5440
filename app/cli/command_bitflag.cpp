// spyglass-cli bitflag FILE: method A's storage of a matrix: its word geometry, bytes against CSR,
// and (--out) the decoded matrix written back to prove the round trip.
#include "bitflag_cli.h"
#include "command.h"
#include "libraryerrors.h"

#include <cstdio>

namespace spyglass::cli {
namespace {

int runBitflag(const QStringList& args) {
    ArgParser parser(args);
    BitFlagOptions options;
    options.order = parser.flag("--col-major") ? BitFlagOrder::ColumnMajor : BitFlagOrder::RowMajor;
    options.prefixCounts = parser.flag("--prefix");
    const bool stats = parser.flag("--stats");
    const QString out = parser.value("-o|--out", QString());
    const QString file = parser.positionals(1, 1, "FILE").front();
    printActiveBackend("bitflag", QStringLiteral("cpu"));  // encoding and statistics on the host
    return printingLibraryErrors("bitflag", [&]() -> int {
        BitFlagMatrix<double> m;
        const double ms = bitflagcli::millisecondsOf([&] { m = bitflagcli::loadBitFlag(file, options); });
        const BitFlagStats s = app::checkedBitFlagStats(m);
        std::printf("matrix          %d x %d, %lld nonzeros (S)\n", m.rows, m.cols, static_cast<long long>(m.nonzeros));
        std::printf("order           %s, %d lines of %d elements\n", toString(m.order), m.lines(), m.lineLength());
        std::printf("flag words      %d x %d-bit per line%s\n", m.wordsPerLine, m.wordBits,
                    m.withPrefixCounts ? ", with per-word prefix counts" : "");
        std::printf("read + encode   %.3f ms\n", ms);
        if (stats) {
            std::printf("density         %.6g\n", s.density);
            std::printf("bit-flag bytes  %zu (values %zu, flags %zu, P %zu, prefix %zu)\n", s.bitFlagBytes,
                        std::size_t(m.nonzeros) * sizeof(double), s.flagBytes, m.lineStart.size() * sizeof(Count),
                        s.prefixBytes);
            std::printf("CSR bytes       %zu (values, 32-bit columns, 64-bit row pointers)\n", s.csrBytes);
            std::printf("ratio           %.3f (bit-flag / CSR)\n", s.csrBytes ? double(s.bitFlagBytes) / double(s.csrBytes) : 0.0);
            std::printf("break-even      density %.6g: above it the bit flags are smaller -> %s wins here\n",
                        s.breakEvenDensity, s.bitFlagBytes < s.csrBytes ? "bit-flag" : "CSR");
        }
        bitflagcli::writeResult(m, out, " (decoded back from the bit-flag form)");
        return ExitOk;
    });
}

} // namespace

SPYGLASS_CLI_COMMAND(bitflag, "bitflag", "bitflag FILE [--col-major] [--prefix] [--stats] [--out FILE]",
                     "Method A: encode a matrix in bit-flag form, show its bytes against CSR, write the round trip.",
                     runBitflag);

} // namespace spyglass::cli
