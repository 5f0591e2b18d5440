// spyglass-cli convert IN OUT [--expand-symmetry]: reads any matrix file Spyglass opens and writes it
// atomically as Matrix Market (gzip when OUT ends in .gz, optionally with the symmetric mirror written
// out), or for SciPy/NumPy when OUT ends in .npz (scipy.sparse csr) or .npy (a dense array), or for
// MATLAB when OUT ends in .mat (a compressed v5 file with one sparse variable: A, or OUT.mat:NAME).
#include "cliargs.h"
#include "command.h"
#include "inputmatrix.h"

#include "core/matrixexport.h"

#include <QRegularExpression>

#include <cstdio>

namespace spyglass::cli {
namespace {

int runConvert(const QStringList& args) {
    ArgParser parser(args);
    WriteOptions options;
    options.expandSymmetry = parser.flag(QStringLiteral("--expand-symmetry"));
    const QStringList files = parser.positionals(2, 2, QStringLiteral("IN OUT"));
    const Matrix matrix = readInputMatrixAsStored(files[0]);  // a dense array stays dense, duplicates as listed
    // OUT.mat or OUT.mat:NAME (the variable's name; A when not given).
    const QRegularExpressionMatch mat =
        QRegularExpression(QStringLiteral("^(.*\\.mat)(?::([^:/]+))?$"), QRegularExpression::CaseInsensitiveOption).match(files[1]);
    if (mat.hasMatch()) {
        const QString name = mat.captured(2).isEmpty() ? QStringLiteral("A") : mat.captured(2);
        app::exportMatrixFile(matrix, mat.captured(1), options, name.toStdString());
        return ExitOk;
    }
    app::exportMatrixFile(matrix, files[1], options);
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(convert, "convert", "convert IN OUT [--expand-symmetry]",
                     "rewrite a matrix as Matrix Market (gzip when OUT ends in .gz, optionally general), as .npz / .npy for SciPy and NumPy, "
                     "or as .mat for MATLAB (OUT.mat[:NAME], a sparse variable, A by default)",
                     runConvert);

} // namespace spyglass::cli
