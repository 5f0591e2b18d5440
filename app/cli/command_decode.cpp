// spyglass-cli decode: any Spyglass container (hybrid, segmented DIA, bit-flag) back to Matrix Market.
// The container is checked whole (framing, checksum, every section) before anything is written.
#include "cliargs.h"
#include "command.h"

#include "core/matrixexport.h"
#include "core/matrixread.h"

#include <cstdio>

namespace spyglass::cli {

namespace {

int runDecode(const QStringList& args) {
    ArgParser parser(args);
    const std::optional<QString> out = parser.value("-o|--output");
    const QString in = parser.positionals(1, 1, "IN").first();
    if (!out) throw UsageError{QStringLiteral("-o OUT.mtx is required")};
    printActiveBackend("decode", QStringLiteral("cpu"));
    ContainerEncoding encoding = ContainerEncoding::HybridBinary;
    const Matrix matrix = app::readContainerFile(in, &encoding);
    app::exportMatrixFile(matrix, *out);  // read back and compared, then renamed into place
    std::printf("%s: %s container, %d x %d, %lld entries (%s) -> %s\n", qPrintable(in), toString(encoding), matrix.rows,
                matrix.cols, static_cast<long long>(matrix.stored()), toString(matrix.field), qPrintable(*out));
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(decode, "decode", "decode IN -o OUT.mtx",
                     "Any Spyglass container (hybrid, segdia, bitflag) back to Matrix Market, checked whole first", runDecode);

} // namespace spyglass::cli
