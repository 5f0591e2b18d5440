#pragma once
// A segmented-DIA container's slot values left where they lie in the file, for the decoder that turns
// the container into a coordinate Matrix: the check pass reads every slot anyway, and copying the
// slots into SegmentedDiaMatrix::values first (an array as big as the matrix's values, zero-filled on
// one thread, then read again) was a third of a reopen. The public segmentedDiaFromContainer still
// fills `values`; this one leaves it empty and says how to read a slot instead.
#include "io/container_io.h"

#include "spyglass/container.h"
#include "spyglass/segdia.h"

#include <string>
#include <string_view>
#include <vector>

namespace spyglass::container_io {

struct SegdiaSlotValues {
    std::string_view bytes;  // the values section, checked
    container::ValueType type = container::ValueType::Float64;
    std::vector<Count> segmentNonzeros;  // nonzero slots of each segment, counted by the check pass

    double operator()(Count slot) const {
        const auto k = static_cast<std::size_t>(slot);
        if (type == container::ValueType::Float64) return get<double>(bytes, k * 8);
        if (type == container::ValueType::Float32) return static_cast<double>(get<float>(bytes, k * 4));
        return static_cast<double>(get<std::uint8_t>(bytes, k));
    }
};

// segmentedDiaFromContainer with the same checks and errors, m.values left empty and the slots
// described in `slots`.
SegmentedDiaMatrix<double> segmentedDiaSlotsFromContainer(const Container& c, const std::string& source, Field* field,
                                                          SegdiaSlotValues& slots);

} // namespace spyglass::container_io
