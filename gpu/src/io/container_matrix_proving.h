#pragma once
// readContainerMatrix, also telling whether the decoder's own checks already proved what
// makeEntriesDistinct would check: every entry inside the shape, strictly row-major (one per
// position). True for a hybrid CSR fallback, whose validation checks each column in range and
// strictly ascending in its row; false for the other encodings (their order is by construction, not
// by a check on the file). The reopen then skips that pass (2-3 ms of a 12 M-entry file on 16 cores).
#include "spyglass/container.h"
#include "spyglass/matrix.h"

#include <string>

namespace spyglass::container_decode {

Matrix readContainerMatrixProving(const std::string& path, ContainerEncoding* encoding, Count maxEntries, bool* rowMajorDistinct);

} // namespace spyglass::container_decode
