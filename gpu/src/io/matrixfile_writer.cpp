// Writing a matrix in whichever format its file name asks for: the counterpart of readMatrixFile,
// shared by the command-line tool and the GUI so that both write the same files.
#include "spyglass/atomicfile.h"
#include "spyglass/matfile.h"
#include "spyglass/matrixfile.h"
#include "spyglass/npz.h"

#include <algorithm>
#include <cctype>

namespace spyglass {

namespace {
bool endsWith(const std::string& path, const char* suffix) {
    const std::string s(suffix);
    if (path.size() < s.size()) return false;
    return std::equal(s.rbegin(), s.rend(), path.rbegin(),
                      [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); });
}
} // namespace

MatrixWriteFormat matrixWriteFormatFor(const std::string& path) {
    if (endsWith(path, ".mat")) return MatrixWriteFormat::Mat;
    if (endsWith(path, ".npz")) return MatrixWriteFormat::Npz;
    if (endsWith(path, ".npy")) return MatrixWriteFormat::Npy;
    return MatrixWriteFormat::MatrixMarket;
}

void writeMatrixFile(const std::string& path, const Matrix& matrix, const WriteOptions& options, const std::string& matVariable) {
    switch (matrixWriteFormatFor(path)) {
    case MatrixWriteFormat::Mat: writeMatFile(path, matrix, matVariable); return;
    case MatrixWriteFormat::Npz: writeFileAtomically(path, serializeNpz(matrix)); return;
    case MatrixWriteFormat::Npy: writeFileAtomically(path, serializeNpy(matrix)); return;
    case MatrixWriteFormat::MatrixMarket: writeMatrixMarket(path, matrix, options); return;
    }
}

} // namespace spyglass
