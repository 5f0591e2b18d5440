// spyglass-cli convert IN OUT [--expand-symmetry]: reads any matrix file Spyglass opens and writes it
// atomically as Matrix Market (gzip when OUT ends in .gz, optionally with the symmetric mirror written
// out), or for SciPy/NumPy when OUT ends in .npz (scipy.sparse csr) or .npy (a dense array).
#include "cliargs.h"
#include "command.h"
#include "inputmatrix.h"

#include "spyglass/atomicfile.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/npz.h"

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
    const std::string out = QFile::encodeName(files[1]).toStdString();
    if (files[1].endsWith(QLatin1String(".npz"), Qt::CaseInsensitive))
        writeFileAtomically(out, serializeNpz(matrix));
    else if (files[1].endsWith(QLatin1String(".npy"), Qt::CaseInsensitive))
        writeFileAtomically(out, serializeNpy(matrix));
    else
        writeMatrixMarket(out, matrix, options);
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(convert, "convert", "convert IN OUT [--expand-symmetry]",
                     "rewrite a matrix as Matrix Market (gzip when OUT ends in .gz, optionally general), or as .npz / .npy for SciPy and NumPy",
                     runConvert);

} // namespace spyglass::cli
