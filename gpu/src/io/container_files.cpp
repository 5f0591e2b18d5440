// The byte-string and file entry points of the three valued encodings (declared in container.h),
// one row each: parse = parseKnownContainer's framing checks, then the encoding's decoder; write =
// the encoder, then writeContainerFile (atomic). The binary hybrid form has its own, without a field.
#include "spyglass/container.h"

namespace spyglass {

#define SPYGLASS_VALUED_CONTAINER_FILES(Name, decode, encode, Matrix)                                                   \
    Matrix<double> parse##Name##Container(std::string_view bytes, const std::string& source, Field* field) {            \
        return decode(parseKnownContainer(bytes, source), source, field);                                               \
    }                                                                                                                    \
    template <typename T>                                                                                                \
    void write##Name##Container(const std::string& path, const Matrix<T>& matrix, Field field, const std::string& note) { \
        writeContainerFile(path, encode(matrix, field, note));                                                          \
    }                                                                                                                    \
    template void write##Name##Container(const std::string&, const Matrix<float>&, Field, const std::string&);         \
    template void write##Name##Container(const std::string&, const Matrix<double>&, Field, const std::string&);

SPYGLASS_VALUED_CONTAINER_FILES(HybridValued, hybridValuedFromContainer, hybridValuedToContainer, HybridValuedMatrix)
SPYGLASS_VALUED_CONTAINER_FILES(SegmentedDia, segmentedDiaFromContainer, segmentedDiaToContainer, SegmentedDiaMatrix)
SPYGLASS_VALUED_CONTAINER_FILES(BitFlag, bitFlagFromContainer, bitFlagToContainer, BitFlagMatrix)

#undef SPYGLASS_VALUED_CONTAINER_FILES

} // namespace spyglass
