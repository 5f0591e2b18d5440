// spyglass-cli convert IN OUT [--expand-symmetry]: reads Matrix Market (.mtx or .mtx.gz) and writes
// it again (gzip when OUT ends in .gz), atomically, optionally with the symmetric mirror written out.
#include "cliargs.h"
#include "command.h"
#include "inputmatrix.h"

#include "spyglass/matrixmarket.h"

#include <QFile>

#include <cstdio>

namespace spyglass::cli {
namespace {

int runConvert(const QStringList& args) {
    ArgParser parser(args);
    WriteOptions options;
    options.expandSymmetry = parser.flag(QStringLiteral("--expand-symmetry"));
    const QStringList files = parser.positionals(2, 2, QStringLiteral("IN OUT"));
    const Matrix matrix = readInputMatrix(files[0]);
    writeMatrixMarket(QFile::encodeName(files[1]).toStdString(), matrix, options);
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(convert, "convert", "convert IN OUT [--expand-symmetry]",
                     "rewrite a Matrix Market file (gzip when OUT ends in .gz), optionally as a general matrix",
                     runConvert);

} // namespace spyglass::cli
