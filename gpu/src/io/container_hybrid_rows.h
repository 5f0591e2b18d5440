#pragma once
// The valued hybrid decoder for the reopen that builds a coordinate Matrix: a CSR fallback's matrix
// is its residual plus the row of each entry, and that row array's std::vector zero-fill (one thread)
// was a stage of its own after everything else. Here it is sized at the same time as the residual's
// columns and values, each on its own thread; matrixFromHybridValued fills it once the residual is
// validated. Arrays sized early (container_early_arrays.h) are used instead when they fit. Same checks
// and errors as hybridValuedFromContainer.
#include "io/container_early_arrays.h"

#include "spyglass/container.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"

#include <string>
#include <vector>

namespace spyglass::container_io {

// hybridValuedFromContainer; for a CSR fallback (no blocks) `entryRows` comes back sized to the
// residual's entries (zeros; filled by matrixFromHybridValued), otherwise untouched. The residual's
// columns and values are copied into the arrays `early` is sizing when it sizes them for its entries,
// and entryRows is then its row array, already filled (`rowsFilled`); otherwise `early` is dropped.
HybridValuedMatrix<double> hybridValuedWithRowsFromContainer(const Container& c, const std::string& source, Field* field,
                                                            container_decode::EarlyCoordinateArrays& early,
                                                            std::vector<Index>& entryRows, bool& rowsFilled);

// hybridFromContainer, the binary form, with the same early path for a CSR fallback: when `early`
// sizes arrays for its entries, its columns are copied into them and entryRows is their row array,
// filled (`rowsFilled`); otherwise `early` is dropped and entryRows untouched.
HybridBinaryMatrix hybridWithRowsFromContainer(const Container& c, const std::string& source, container_decode::EarlyCoordinateArrays& early,
                                               std::vector<Index>& entryRows, bool& rowsFilled);

} // namespace spyglass::container_io
