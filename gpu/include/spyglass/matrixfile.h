#pragma once
// Opening a matrix file of any kind Spyglass reads: Matrix Market text (plain or gzip), the Spyglass
// export container (.spy, any encoding; docs/container-format.md), SciPy's sparse .npz and NumPy's
// .npy (spyglass/npz.h), Harwell-Boeing / Rutherford-Boeing (spyglass/harwellboeing.h) and MATLAB .mat
// (spyglass/matfile.h; "FILE.mat:VAR" names a variable). The kind is told by the first bytes, not the name, so an exported matrix
// reopens wherever a Matrix Market file opens.
#include "spyglass/distinctentries.h"
#include "spyglass/matrix.h"
#include "spyglass/matrixmarket.h"

#include <string>

namespace spyglass {

enum class MatrixFileKind { MatrixMarket, Container, Npz, Npy, HarwellBoeing, Mat };
const char* toString(MatrixFileKind kind);

// The kind by content: the container magic "SPYGLSMX", a ZIP archive (.npz), the .npy magic, the
// .mat text header ("MATLAB 5.0 MAT-file" or "MATLAB 7.3 MAT-file"; also for FILE.mat:VAR), a
// Harwell-Boeing header (a type such as RUA on line 3, a Fortran format on line 4), else Matrix Market. Throws Error when the
// file cannot be opened.
MatrixFileKind matrixFileKind(const std::string& path);

// Reads either kind. A container decodes to the general coordinate matrix it encodes (rows in order,
// columns ascending; see matrixFromContainer) and is refused, naming the byte, when damaged;
// options.maxEntries and options.cancel apply to both (a container is decoded in one step, so
// cancel is looked at before and after it). kind (when given) receives what was read.
Matrix readMatrixFile(const std::string& path, const ReadOptions& options = {}, MatrixFileKind* kind = nullptr);

// readMatrixFile, then makeEntriesDistinct on options.threads threads (what the window and the CLI
// open): one entry per position. Where the reader's own checks already proved the entries strictly
// row-major inside the shape (a hybrid CSR fallback container), that pass is skipped and
// report->orderProvenByReader says so.
Matrix readDistinctMatrixFile(const std::string& path, const ReadOptions& options = {}, DistinctEntriesReport* report = nullptr,
                              MatrixFileKind* kind = nullptr);

// Writes the matrix in the format its name asks for, atomically (the old file or the complete new
// one): .mat for MATLAB (a compressed version 5 file with one sparse variable named matVariable),
// .npz for scipy.sparse (csr), .npy for NumPy (dense), else Matrix Market (gzip when the name ends in
// .gz). The one writer behind `spyglass-cli convert` and the GUI's File > Export Matrix As.
// Throws InputError when the format cannot hold the matrix (e.g. a complex one as .mat), Error when
// the file cannot be written.
enum class MatrixWriteFormat { MatrixMarket, Mat, Npz, Npy };
MatrixWriteFormat matrixWriteFormatFor(const std::string& path);
void writeMatrixFile(const std::string& path, const Matrix& matrix, const WriteOptions& options = {},
                     const std::string& matVariable = "A");

} // namespace spyglass
