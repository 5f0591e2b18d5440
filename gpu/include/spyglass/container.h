#pragma once
// The Spyglass export container (docs/container-format.md): magic, version, encoding, dimensions,
// typed sections (id, flags, length), a CRC-32 over everything. Any encoding adds its own section
// ids; the framing, the checks and the atomic write are shared. Readers validate every size against
// the file length before allocating and reject damaged files naming the problem and byte offset.
#include "spyglass/error.h"
#include "spyglass/hybridbinary.h"

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
// Section ids: 0x01xx hybrid binary (method D); 0x02xx reserved for segmented DIA (method B);
// 0x03xx reserved for bit-flag (method A); 0xFFxx free-form optional metadata.
constexpr std::uint32_t kHybridSummary = 0x0101;
constexpr std::uint32_t kHybridRegions = 0x0102;
constexpr std::uint32_t kHybridZeroRowPtr = 0x0103;
constexpr std::uint32_t kHybridZeroOffsets = 0x0104;
constexpr std::uint32_t kHybridResidualRowPtr = 0x0105;
constexpr std::uint32_t kHybridResidualCols = 0x0106;
constexpr std::uint32_t kMetadataText = 0xFF01;  // optional UTF-8 note (producer, source file)
} // namespace container

struct ContainerSection {
    std::uint32_t id = 0;
    std::uint32_t flags = 0;
    std::string payload;
    std::uint64_t offset = 0;  // byte offset of the payload in the file (set by the reader)
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

} // namespace spyglass
