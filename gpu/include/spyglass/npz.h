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

// True when the bytes start as a ZIP archive (.npz) or as a .npy array.
bool looksLikeNpz(std::string_view head);
bool looksLikeNpy(std::string_view head);

} // namespace spyglass
