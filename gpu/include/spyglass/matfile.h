#pragma once
// MATLAB .mat files (through matio), read into the file form every other Spyglass format starts from:
//   - version 5 (MATLAB's -v6 and -v7, scipy.io.savemat), compressed or not, and version 7.3 (HDF5);
//   - sparse (double, complex or logical) and dense numeric variables (double, single, the integer
//     classes, logical, complex), 2-D; a 1 x 1 struct's field is named "Struct.field".
// Only files with a version 5 or 7.3 header are read (matio's version 4 fallback reads any bytes).
// A file holds several variables; the caller names one ("FILE.mat:VAR" on the command line). Without
// a name: the only matrix variable, or Problem.A in the SuiteSparse collection's layout; else the
// error lists the matrix variables. A logical sparse matrix whose values are all true is a pattern
// matrix; a dense logical array is 0/1 integers. Errors are InputError naming the file, the variable
// and the problem.
// matio and HDF5 never run in the caller's process: listing and reading fork a child with limits on
// memory and time, and a crash or a limit hit there is an InputError "FILE: the MATLAB reader stopped:
// REASON" (docs/reliability.md, "The sandbox").
#include "spyglass/matrix.h"

#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spyglass {

// One matrix variable of a .mat file, as the GUI offers it for choosing.
struct MatVariable {
    std::string name;         // "A", or "Problem.A" for a struct's field
    std::string matlabClass;  // "double", "single", "int32", "logical", ...
    Index rows = 0, cols = 0;
    bool sparse = false;
    bool complex = false;
};

// The matrix variables in file order (struct Problem's field A among them); char, cell, struct and
// object variables are left out. Throws InputError when the file is not a readable .mat file.
std::vector<MatVariable> listMatVariables(const std::string& path);

// Reads one variable; an empty name chooses as described above. maxEntries (> 0) refuses a variable
// with more stored entries before matio reads its data (the count from the variable's header; for a
// 7.3 sparse variable, from its HDF5 datasets' sizes); cancel is looked at before and after.
Matrix readMatFile(const std::string& path, const std::string& variable = {}, Count maxEntries = 0,
                   const std::atomic<bool>* cancel = nullptr);

// Writes a compressed version 5 .mat (scipy.io.loadmat and MATLAB read it) holding the matrix as one
// sparse variable: double, complex double, or logical for a pattern matrix; symmetric kinds written
// out in full, duplicates summed. The name must be a MATLAB name (a letter, then letters, digits or
// _, at most 63). Atomic: the old file or the complete new one. Throws InputError for a bad name or
// too many entries (matio's sparse indices are 32-bit), Error when the file cannot be written.
void writeMatFile(const std::string& path, const Matrix& matrix, const std::string& variable = "A");

// True when the bytes start as a version 5 or 7.3 .mat file (the 128-byte text header).
bool looksLikeMatFile(std::string_view head);

// "FILE.mat:VAR" where FILE.mat is a regular file that looks like a .mat file and the whole path is
// not a file itself: the file and the variable. nullopt otherwise.
struct MatFilePath {
    std::string file;
    std::string variable;
};
std::optional<MatFilePath> splitMatFilePath(const std::string& path);

} // namespace spyglass
