#pragma once
// The Spyglass export container (docs/container-format.md): magic, version, encoding, dimensions,
// typed sections (id, flags, length), a CRC-32 over everything. Any encoding adds its own section
// ids; the framing, the checks and the atomic write are shared. Readers validate every size against
// the file length before allocating and reject damaged files naming the problem and byte offset.
#include "spyglass/bitflag.h"
#include "spyglass/error.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"
#include "spyglass/segdia.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace spyglass {

// A damaged or unsupported container: names the source, the byte offset and the problem.
class ContainerFormatError : public InputError {
public:
    ContainerFormatError(const std::string& source, std::uint64_t offset, const std::string& problem)
        : InputError(source + ": byte " + std::to_string(offset) + ": " + problem), m_offset(offset), m_problem(problem) {}
    std::uint64_t offset() const { return m_offset; }
    const std::string& problem() const { return m_problem; }

private:
    std::uint64_t m_offset;
    std::string m_problem;
};

enum class ContainerEncoding : std::uint32_t { HybridBinary = 1, SegmentedDia = 2, BitFlag = 3 };
const char* toString(ContainerEncoding encoding);

namespace container {
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 48, kSectionHeaderBytes = 16, kTrailerBytes = 8;
// Section flag: a reader that does not know the id may skip the section (otherwise it must refuse).
constexpr std::uint32_t kSectionOptional = 1u;
// Section ids: 0x01xx hybrid binary (method D); 0x02xx segmented DIA (method B); 0x03xx bit-flag
// (method A); 0xFFxx free-form optional metadata.
constexpr std::uint32_t kHybridSummary = 0x0101;
constexpr std::uint32_t kHybridRegions = 0x0102;
constexpr std::uint32_t kHybridZeroRowPtr = 0x0103;
constexpr std::uint32_t kHybridZeroOffsets = 0x0104;
constexpr std::uint32_t kHybridResidualRowPtr = 0x0105;
constexpr std::uint32_t kHybridResidualCols = 0x0106;
// Valued hybrid (summary flag kHybridValued): present exactly in valued files, where 0x0103/0x0104 are not.
constexpr std::uint32_t kHybridRegionValues = 0x0107;
constexpr std::uint32_t kHybridResidualValues = 0x0108;
// Hybrid summary flags: bit 0 CSR fallback (no regions); bit 1 the valued form (summary version 2).
constexpr std::uint32_t kHybridFallback = 1u, kHybridValued = 2u;
constexpr std::uint32_t kSegdiaSummary = 0x0201;
constexpr std::uint32_t kSegdiaRowStarts = 0x0202;
constexpr std::uint32_t kSegdiaOffsetStarts = 0x0203;
constexpr std::uint32_t kSegdiaOffsets = 0x0204;
constexpr std::uint32_t kSegdiaValues = 0x0205;
constexpr std::uint32_t kSegdiaBlockStarts = 0x0206;
constexpr std::uint32_t kSegdiaBlockSegments = 0x0207;
// Summary version 1 (the CSR remainder): present exactly when the summary says version 1.
constexpr std::uint32_t kSegdiaRemainderStarts = 0x0208;
constexpr std::uint32_t kSegdiaRemainderRowStarts = 0x0209;
constexpr std::uint32_t kSegdiaRemainderColumns = 0x020A;
constexpr std::uint32_t kSegdiaRemainderValues = 0x020B;
constexpr std::uint32_t kBitFlagSummary = 0x0301;
constexpr std::uint32_t kBitFlagFlags = 0x0302;
constexpr std::uint32_t kBitFlagLineStarts = 0x0303;
constexpr std::uint32_t kBitFlagValues = 0x0304;
constexpr std::uint32_t kBitFlagPrefixCounts = 0x0305;
constexpr std::uint32_t kMetadataText = 0xFF01;  // optional UTF-8 note (producer, source file)

// How the segmented-DIA and bit-flag sections store values (summary field "value type").
enum class ValueType : std::uint32_t {
    ImpliedOnes = 0,  // bit-flag of a pattern: no values stored, every flagged element is 1
    Binary8 = 1,      // segmented DIA of a pattern: one byte per slot, 1 = entry, 0 = padding
    Float32 = 2,
    Float64 = 3,
};
// The Matrix Market field a decoder gives back (summary field "field"): 0 real, 1 integer, 2 pattern.
std::uint32_t fieldCode(Field field);  // Real/Double -> 0, Integer -> 1, Pattern -> 2; Complex: InputError
Field fieldFromCode(std::uint32_t code);  // code <= 2
} // namespace container

struct ContainerSection {
    std::uint32_t id = 0;
    std::uint32_t flags = 0;
    std::string payload;
    std::uint64_t offset = 0;  // byte offset of the payload in the file (set by the reader)
    // Set instead of payload by a reader that decodes in place: the file's bytes, which must outlive
    // the section (readContainerMatrix keeps the file mapped while it decodes).
    std::string_view mapped{};
    // What the decoders read: the mapped bytes when set, else the payload.
    std::string_view bytes() const { return mapped.data() != nullptr ? mapped : std::string_view(payload); }
};

struct Container {
    std::uint32_t version = container::kVersion;
    ContainerEncoding encoding = ContainerEncoding::HybridBinary;
    Index rows = 0, cols = 0;
    std::vector<ContainerSection> sections;
    // The section with this id, or nullptr.
    const ContainerSection* find(std::uint32_t id) const;
};

std::string serializeContainer(const Container& container);
// Checks framing, version, sizes and checksum; section contents are the encoding's to check.
// knownIds: section ids the caller understands; an unknown id without kSectionOptional is refused.
Container parseContainer(std::string_view bytes, const std::string& source, const std::vector<std::uint32_t>& knownIds);
void writeContainerFile(const std::string& path, const Container& container);  // atomic
std::string readFileBytes(const std::string& path);

// Method D in the container. hybridFromContainer checks every count, range and index and the whole
// encoding (validateHybrid); a damaged file throws ContainerFormatError naming the section's offset.
Container hybridToContainer(const HybridBinaryMatrix& hybrid, const std::string& note = {});
HybridBinaryMatrix hybridFromContainer(const Container& container, const std::string& source = "<memory>");
void writeHybridContainer(const std::string& path, const HybridBinaryMatrix& hybrid, const std::string& note = {});
HybridBinaryMatrix readHybridContainer(const std::string& path);
HybridBinaryMatrix parseHybridContainer(std::string_view bytes, const std::string& source = "<memory>");
// True when a hybrid container holds the valued form (summary flag bit 1); false for any other.
bool isValuedHybridContainer(const Container& container);

// Method D on a valued matrix (docs/container-format.md, "Valued hybrid"): the same encoding id and
// region records, the summary flagged valued with its value type and field, region values and residual
// values instead of zero positions. Values are stored at T's width; field Real or Integer (every value a
// whole number, else InputError). The reader checks every count before allocating, the field, the
// zero counts of the records against the values, then validateHybridValued; f32 values widen exactly.
template <typename T>
Container hybridValuedToContainer(const HybridValuedMatrix<T>& hybrid, Field field = Field::Real, const std::string& note = {});
HybridValuedMatrix<double> hybridValuedFromContainer(const Container& container, const std::string& source = "<memory>",
                                                     Field* field = nullptr);
HybridValuedMatrix<double> parseHybridValuedContainer(std::string_view bytes, const std::string& source = "<memory>",
                                                      Field* field = nullptr);
template <typename T>
void writeHybridValuedContainer(const std::string& path, const HybridValuedMatrix<T>& hybrid, Field field = Field::Real,
                                const std::string& note = {});

// Method B in the container (docs/container-format.md, "Segmented DIA sections"). `field` says how the
// values read back: Real; Integer (every value a whole number); Pattern (every slot 0 or 1, stored as
// one byte). Values are stored at T's width (float: f32, double: f64). Merge steps are not stored.
// T: float or double. Values that do not fit the field throw InputError.
template <typename T>
Container segmentedDiaToContainer(const SegmentedDiaMatrix<T>& matrix, Field field = Field::Real, const std::string& note = {});
// Checks every count, offset, range and ordering, the padding outside the matrix and the nonzero
// count; a damaged file throws ContainerFormatError naming the section, the entry and the byte.
// field (when given) receives the field stored in the summary. f32 values widen exactly.
SegmentedDiaMatrix<double> segmentedDiaFromContainer(const Container& container, const std::string& source = "<memory>",
                                                     Field* field = nullptr);
SegmentedDiaMatrix<double> parseSegmentedDiaContainer(std::string_view bytes, const std::string& source = "<memory>",
                                                      Field* field = nullptr);
template <typename T>
void writeSegmentedDiaContainer(const std::string& path, const SegmentedDiaMatrix<T>& matrix, Field field = Field::Real,
                                const std::string& note = {});

// Method A in the container ("Bit-flag sections"): M, F, P and, when the matrix has them, the
// per-word prefix counts. field Pattern stores no values (every flagged element must be 1).
template <typename T>
Container bitFlagToContainer(const BitFlagMatrix<T>& matrix, Field field = Field::Real, const std::string& note = {});
// Checks the word geometry, P against the popcount of every line, no bits past a line's end, the
// prefix counts, value counts and the field; ContainerFormatError names section, entry and byte.
BitFlagMatrix<double> bitFlagFromContainer(const Container& container, const std::string& source = "<memory>",
                                           Field* field = nullptr);
BitFlagMatrix<double> parseBitFlagContainer(std::string_view bytes, const std::string& source = "<memory>",
                                            Field* field = nullptr);
template <typename T>
void writeBitFlagContainer(const std::string& path, const BitFlagMatrix<T>& matrix, Field field = Field::Real,
                           const std::string& note = {});

// Section ids each encoding reads (for parseContainer), and every id any of them reads.
const std::vector<std::uint32_t>& containerSectionIds(ContainerEncoding encoding);
const std::vector<std::uint32_t>& allContainerSectionIds();

// Framing checked (parseContainer) with every encoding's ids known, then every section must belong
// to the encoding the header names (a known id of another encoding is as wrong as an unknown one).
// The readers above use it, so that a file of another encoding is refused as such.
Container parseKnownContainer(std::string_view bytes, const std::string& source);

// Any container back to the matrix it encodes, exactly: general, coordinate, rows in order, columns
// ascending. Hybrid gives a pattern; segmented DIA and bit-flag give the field their summary names
// (segmented DIA cannot hold explicit zeros: those entries were padding and do not come back).
// A few hundred bytes of hybrid container can describe 2^62 ones: a container decoding to more than
// maxEntries entries is refused (InputError) before anything is expanded, and one that would not fit
// the host's memory throws OutOfMemoryError. Nothing is sized by the dimensions alone.
constexpr Count kDefaultMaxDecodedEntries = Count(2) * 1000 * 1000 * 1000;  // as ReadOptions::maxEntries
Matrix matrixFromContainer(const Container& container, const std::string& source = "<memory>",
                           Count maxEntries = kDefaultMaxDecodedEntries);
// encoding (when given) receives the encoding the header names.
Matrix parseContainerMatrix(std::string_view bytes, const std::string& source = "<memory>", ContainerEncoding* encoding = nullptr,
                            Count maxEntries = kDefaultMaxDecodedEntries);
Matrix readContainerMatrix(const std::string& path, ContainerEncoding* encoding = nullptr,
                           Count maxEntries = kDefaultMaxDecodedEntries);

} // namespace spyglass
