#pragma once
// NumPy and SciPy files, read into the file form every other Spyglass format starts from:
//   - .npz written by scipy.sparse.save_npz: csr, csc, coo, bsr and dia matrices (the members
//     format, shape and the format's arrays), stored or compressed (savez_compressed);
//   - .npy holding one 2-D array (numpy.save): a dense matrix, C or Fortran order.
// Values: float16/32/64, signed and unsigned integers, bool and complex64/128, either byte order. A
// bool matrix whose stored values are all true is a pattern (binary) matrix. Errors are InputError
// naming the file, the member and the byte offset or the field.
#include "spyglass/matrix.h"

#include <string>
#include <string_view>

namespace spyglass {

// maxEntries (> 0) refuses files with more stored entries before they are unpacked.
Matrix parseNpz(std::string_view bytes, const std::string& where, Count maxEntries = 0);
Matrix parseNpy(std::string_view bytes, const std::string& where, Count maxEntries = 0);

// Writing for SciPy and NumPy users (spyglass-cli convert OUT.npz / OUT.npy):
// serializeNpz gives what scipy.sparse.load_npz reads: a csr matrix (symmetric kinds written out in
// full, as SciPy has no symmetric form), values float64, complex128, int64 or bool (pattern), 32-bit
// indices unless the entries need 64, members stored. serializeNpy gives a dense 2-D float64 or
// complex128 array in C order; refused (InputError) past 2^28 elements.
std::string serializeNpz(const Matrix& matrix);
std::string serializeNpy(const Matrix& matrix);

// True when the bytes start as a ZIP archive (.npz) or as a .npy array.
bool looksLikeNpz(std::string_view head);
bool looksLikeNpy(std::string_view head);

} // namespace spyglass
