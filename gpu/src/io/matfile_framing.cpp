// Walks a version 5 .mat file's tagged elements (MATLAB's "MAT-File Format", section 1): a 128-byte
// header, then elements of an 8-byte tag (type, byte count) and data padded to 8 bytes; a small
// element packs type, count and up to 4 bytes of data into 8 bytes; a compressed element (type 15)
// holds one deflated element, unpadded; a matrix element (type 14) holds sub-elements: array flags,
// dimensions, name, then the class's data (or, for cells and structs, more matrix elements).
#include "io/matfile_framing.h"

#include "spyglass/error.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <vector>

namespace spyglass::matfile {

namespace {

constexpr std::uint32_t kInt8 = 1, kInt32 = 5, kUInt32 = 6, kMatrix = 14, kCompressed = 15;
constexpr int kMaxDepth = 64;  // cells of cells: deeper nesting is refused rather than recursed into

// MATLAB's classes (the array flags' low byte) whose elements the checks below tell apart.
constexpr std::uint32_t kCell = 1, kStruct = 2, kObject = 3, kChar = 4, kSparse = 5, kUInt64Class = 15, kFunction = 16, kOpaque = 17;
constexpr std::uint32_t kComplexFlag = 0x0800;

// Bytes a value of a data type takes (0 for the types that are containers, not values).
std::uint64_t bytesPerValue(std::uint32_t dataType) {
    switch (dataType) {
    case 1: case 2: case 16: return 1;    // miINT8, miUINT8, miUTF8
    case 3: case 4: case 17: return 2;    // miINT16, miUINT16, miUTF16
    case 5: case 6: case 7: case 18: return 4;  // miINT32, miUINT32, miSINGLE, miUTF32
    case 9: case 12: case 13: return 8;   // miDOUBLE, miINT64, miUINT64
    default: return 0;
    }
}

// One sub-element of a matrix element, as the checks after its walk need it: the data type, the
// byte count and, for an element of at most 8 bytes, its first 32-bit word (a struct's field name
// length).
struct Child {
    std::uint32_t type = 0;
    std::uint64_t bytes = 0;
    std::uint32_t firstWord = 0;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw InputError(path + ": " + what); }

// Bytes in order from the file or from a deflated stream inside it; `position` counts them.
class Source {
public:
    virtual ~Source() = default;
    virtual bool read(unsigned char* out, std::uint64_t n) = 0;
    bool skip(std::uint64_t n) {
        unsigned char scratch[4096];
        while (n > 0) {
            const std::uint64_t step = std::min<std::uint64_t>(n, sizeof scratch);
            if (!read(scratch, step)) return false;
            n -= step;
        }
        return true;
    }
    std::uint64_t position = 0;
};

class FileSource : public Source {
public:
    FileSource(std::ifstream& in, std::uint64_t end) : m_in(in), m_end(end) {}
    bool read(unsigned char* out, std::uint64_t n) override {
        if (n > m_end - position) return false;
        m_in.seekg(std::streamoff(position));
        if (!m_in.read(reinterpret_cast<char*>(out), std::streamsize(n))) return false;
        position += n;
        return true;
    }

private:
    std::ifstream& m_in;
    std::uint64_t m_end;
};

class InflateSource : public Source {
public:
    InflateSource(std::ifstream& in, std::uint64_t begin, std::uint64_t bytes) : m_in(in), m_next(begin), m_left(bytes) {
        m_ok = inflateInit(&m_stream) == Z_OK;
    }
    ~InflateSource() override { inflateEnd(&m_stream); }
    bool read(unsigned char* out, std::uint64_t n) override {
        while (n > 0 && m_ok) {
            if (m_stream.avail_in == 0 && m_left > 0) {
                const std::uint64_t step = std::min<std::uint64_t>(m_left, m_input.size());
                m_in.seekg(std::streamoff(m_next));
                if (!m_in.read(reinterpret_cast<char*>(m_input.data()), std::streamsize(step))) return false;
                m_next += step;
                m_left -= step;
                m_stream.next_in = m_input.data();
                m_stream.avail_in = uInt(step);
            }
            const uInt want = uInt(std::min<std::uint64_t>(n, 1u << 30));
            m_stream.next_out = out;
            m_stream.avail_out = want;
            const int status = inflate(&m_stream, Z_NO_FLUSH);
            const uInt got = want - m_stream.avail_out;
            out += got;
            n -= got;
            position += got;
            if (status == Z_STREAM_END || (status != Z_OK && status != Z_BUF_ERROR) || (got == 0 && m_stream.avail_in == 0 && m_left == 0))
                m_ok = n == 0 && status != Z_DATA_ERROR && status != Z_MEM_ERROR && status != Z_NEED_DICT && status != Z_STREAM_ERROR;
        }
        return n == 0;
    }

private:
    std::ifstream& m_in;
    std::uint64_t m_next, m_left;
    z_stream m_stream{};
    std::vector<unsigned char> m_input = std::vector<unsigned char>(1 << 16);
    bool m_ok = false;
};

class Walker {
public:
    Walker(std::ifstream& in, const std::string& path, bool swapped) : m_in(in), m_path(path), m_swapped(swapped) {}

    std::uint32_t word(const unsigned char* p) const {
        return m_swapped ? std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3]
                         : std::uint32_t(p[3]) << 24 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[1]) << 8 | p[0];
    }

    [[noreturn]] void bad(const Source& source, const std::string& what, bool inflated) const {
        fail(m_path, what + " (" + (inflated ? "byte " + std::to_string(source.position) + " of a compressed element" : "byte " + std::to_string(source.position)) + ")");
    }

    // The elements filling `available` bytes of `source` (all of what it holds when unbounded).
    // sparse: a sparse matrix's sub-elements after its dimensions: the name (int8), the row indices and
    // column pointers (32-bit integers, as the format defines them), then numbers. matio reads an index
    // element of another type (UTF-16, 16-bit) at the wrong width and takes an index for a byte count.
    // children: where a matrix element's walk lists its sub-elements (nullptr elsewhere).
    void elements(Source& source, std::uint64_t available, bool bounded, bool inflated, int depth, bool sparse = false,
                  std::vector<Child>* children = nullptr) {
        int index = 0;  // of the element within its container
        while (!bounded || available > 0) {
            unsigned char tag[8];
            if (bounded && available < 8) bad(source, std::to_string(available) + " bytes left are too few for an element", inflated);
            if (!source.read(tag, 8)) {
                if (!bounded) return;  // the end of a compressed element's stream
                bad(source, "the file is cut short inside an element", inflated);
            }
            available -= bounded ? 8 : 0;
            const std::uint32_t type = word(tag), bytes = word(tag + 4);
            // The format's data types (miINT8 .. miUTF32); matio misreads a tag of any other type.
            const std::uint32_t dataType = type >> 16 != 0 ? type & 0xFFFF : type;
            if (dataType == 0 || dataType == 8 || dataType == 10 || dataType == 11 || dataType > 18)
                bad(source, "an element of unknown type " + std::to_string(dataType), inflated);
            if (sparse) {
                const bool indices = index == 1 || index == 2;  // miINT32 or miUINT32
                const bool numeric = dataType <= 9 || dataType == 12 || dataType == 13;  // miINT8 .. miDOUBLE, miINT64, miUINT64
                if (indices ? !(dataType == 5 || dataType == 6) : !numeric)
                    bad(source, "a sparse matrix holds an element of type " + std::to_string(dataType) + " where " +
                                    (indices ? "32-bit indices" : "a number") + " belong",
                        inflated);
            }
            ++index;
            if (type >> 16 != 0) {  // small element: all in the tag, whose 4 data bytes hold at most 4
                if (type >> 16 > 4) bad(source, "a small element declares " + std::to_string(type >> 16) + " bytes, its tag holds 4", inflated);
                if (dataType == kMatrix || dataType == kCompressed)
                    bad(source, "a small element of type " + std::to_string(dataType) + " (a matrix or compressed element cannot fit in a tag)", inflated);
                if (children) children->push_back({dataType, type >> 16, word(tag + 4)});
                continue;
            }
            if (bounded && bytes > available)
                bad(source, "an element declares " + std::to_string(bytes) + " bytes, its container holds " + std::to_string(available), inflated);
            const std::uint64_t start = source.position;
            std::uint32_t firstWord = 0;
            if (type == kCompressed && !inflated && depth == 0) {
                InflateSource inner(m_in, start, bytes);
                elements(inner, 0, false, true, depth + 1);
                if (!source.skip(bytes)) bad(source, "the file is cut short inside a compressed element", inflated);
            } else if (type == kMatrix) {
                if (depth > kMaxDepth) bad(source, "matrices nested more than " + std::to_string(kMaxDepth) + " deep", inflated);
                // A variable is a matrix element outside any other (the file's or a compressed element's).
                matrix(source, bytes, inflated, depth + 1, children == nullptr);
            } else if (children && bytes <= 8) {
                unsigned char data[8] = {};
                if (!source.read(data, bytes)) bad(source, "an element declares " + std::to_string(bytes) + " bytes, the data ends first", inflated);
                firstWord = word(data);
            } else if (!source.skip(bytes)) {
                bad(source, "an element declares " + std::to_string(bytes) + " bytes, the data ends first", inflated);
            }
            if (children) children->push_back({type == kMatrix ? kMatrix : dataType, bytes, firstWord});
            const std::uint64_t padding = type == kCompressed ? 0 : (8 - bytes % 8) % 8;
            if (bounded) available -= bytes;
            const std::uint64_t pad = bounded ? std::min<std::uint64_t>(padding, available) : padding;
            if (pad > 0 && !source.skip(pad)) {
                if (!bounded) return;  // a stream may end without the last padding
                bad(source, "the file is cut short in an element's padding", inflated);
            }
            if (bounded) available -= pad;
            if (!bounded && inflated) return;  // a compressed element holds one element
        }
    }

    // A matrix element's sub-elements, checked against what the format defines for its class: matio
    // reads them in that order whatever the element's byte count says, so one left out makes it read
    // the bytes after the element as the missing one (a sparse matrix with row indices alone: matio
    // took the next tag's 469762048 bytes for its values). A cell's or struct's declared element count
    // must fit its bytes.
    void matrix(Source& source, std::uint64_t bytes, bool inflated, int depth, bool variable) {
        // An empty placeholder (an empty cell's element) holds nothing; matio reads a variable's flags,
        // dimensions and name whatever its byte count, so an empty one would make it read on past it (a
        // 192-byte file so had it ask for 1 GB).
        if (bytes == 0 && variable) bad(source, "a variable's matrix element is empty (0 bytes)", inflated);
        if (bytes == 0) return;
        const std::uint64_t end = source.position + bytes;
        unsigned char flags[16];
        if (bytes < 16 || !source.read(flags, 16)) bad(source, "a matrix element is cut short in its array flags", inflated);
        if (word(flags) != kUInt32 || word(flags + 4) != 8)
            bad(source, "a matrix element's array flags are not 8 bytes of 32-bit unsigned integers", inflated);
        const std::uint32_t matlabClass = word(flags + 8) & 0xFF;
        const bool complex = (word(flags + 8) & kComplexFlag) != 0;
        const std::uint64_t nzmax = word(flags + 12);
        // An opaque object (MATLAB's strings, tables and other classes) has no dimensions after its
        // flags but names; Spyglass never reads one, and its layout is left to matio.
        const bool opaque = matlabClass == kOpaque;
        std::uint64_t count = 1, columns = 0;
        if (!opaque && end - source.position < 8) bad(source, "a matrix element has no dimensions", inflated);
        if (end - source.position >= 8) {
            unsigned char tag[8];
            if (!source.read(tag, 8)) bad(source, "a matrix element is cut short in its dimensions", inflated);
            const std::uint32_t type = word(tag), small = type >> 16;
            std::uint32_t dimsBytes = small ? small : word(tag + 4);
            // The dimensions are 32-bit integers, two or more: matio reads them as such whatever the
            // tag says (a 1-byte miINT8 dimension element made it take the padding after it for the
            // name's length and ask for 1 GB).
            if (!opaque && (small || type != kInt32 || dimsBytes % 4 != 0 || dimsBytes < 8))
                bad(source, "a matrix element's dimensions are not two or more 32-bit integers (type " + std::to_string(small ? type & 0xFFFF : type) +
                                ", " + std::to_string(dimsBytes) + " bytes)",
                    inflated);
            std::vector<unsigned char> dims;
            if (small) {
                dims.assign(tag + 4, tag + 8);
                dimsBytes = std::min<std::uint32_t>(dimsBytes, 4);
            } else {
                if (dimsBytes > end - source.position || dimsBytes > 4096) bad(source, "the dimensions declare " + std::to_string(dimsBytes) + " bytes", inflated);
                dims.resize((dimsBytes + 7) / 8 * 8);
                const std::uint64_t take = std::min<std::uint64_t>(dims.size(), end - source.position);
                if (!source.read(dims.data(), take)) bad(source, "a matrix element is cut short in its dimensions", inflated);
            }
            for (std::uint32_t k = 0; k + 4 <= dimsBytes; k += 4) {
                const std::uint64_t d = word(dims.data() + k);
                if (k == 4) columns = d;
                count = d == 0 || count == 0 ? 0 : std::min<std::uint64_t>(count * std::min<std::uint64_t>(d, std::uint64_t(1) << 31), std::uint64_t(1) << 62);
            }
        }
        const std::uint64_t left = end - source.position;
        // A cell holds one matrix element (at least a tag) per element; a struct or an object one per
        // field and element.
        const bool holdsMatrices = holdsMatricesClass(matlabClass);
        if (holdsMatrices && count > left / 8)
            bad(source, "a " + containerNoun(matlabClass) + " declares " +
                             std::to_string(count) + " elements in " + std::to_string(left) + " bytes", inflated);
        // matio allocates by the dimensions before reading the data: a sparse matrix stores one 4-byte
        // column pointer per column + 1, a numeric or char array at least one byte per element.
        if (matlabClass == kSparse && (columns + 1) * 4 > left)
            bad(source, "a sparse matrix of " + std::to_string(columns) + " columns has " + std::to_string(left) + " bytes, too few for its column pointers", inflated);
        // Every other class, those Spyglass never reads (function handles, opaque classes, unknown
        // numbers) included: matio sizes them by the dimensions too (a 1 kB file declaring 0x22 x
        // 0x20000022 of class 16 made it ask for 146 GB).
        if (!holdsMatrices && matlabClass != kSparse && count > left)
            bad(source, "an array of " + std::to_string(count) + " elements has " + std::to_string(left) + " bytes of data", inflated);
        std::vector<Child> children;
        elements(source, left, true, inflated, depth, matlabClass == kSparse, &children);
        if (!opaque) checkSubElements(source, children, matlabClass, complex, count, nzmax, inflated);
    }

    // The sub-elements after the dimensions: the name (miINT8, perhaps empty), then by class: for a
    // numeric or char array the real and, when complex, imaginary parts; for a sparse matrix row
    // indices, column pointers, real and imaginary parts, the index and value counts within nzmax
    // (which the reader holds to its entry limit); for a cell its elements; for a struct a field name
    // length, the names and a matrix per field and element; for an object its class name first.
    void checkSubElements(const Source& source, const std::vector<Child>& children, std::uint32_t matlabClass, bool complex,
                          std::uint64_t count, std::uint64_t nzmax, bool inflated) const {
        if (children.empty() || children[0].type != kInt8) bad(source, "a matrix element has no name (an 8-bit text element)", inflated);
        const std::size_t parts = complex ? 2 : 1;
        // n sub-elements, the name included.
        const auto need = [&](std::size_t n, const char* what) {
            if (children.size() < n)
                bad(source, "a matrix element of class " + std::to_string(matlabClass) + " holds " + std::to_string(children.size() - 1) +
                                " sub-elements after its name, too few for its " + what,
                    inflated);
        };
        if (matlabClass == kSparse) {
            need(3 + parts, complex ? "row indices, column pointers, real and imaginary parts" : "row indices, column pointers and values");
            for (std::size_t k = 3; k < 3 + parts; ++k)
                if (bytesPerValue(children[k].type) == 0 || children[k].bytes / bytesPerValue(children[k].type) > nzmax)
                    bad(source, "a sparse matrix holds " + std::to_string(children[k].bytes) + " bytes of values, more than its nzmax of " + std::to_string(nzmax), inflated);
            if (children[1].bytes / 4 > nzmax)
                bad(source, "a sparse matrix holds " + std::to_string(children[1].bytes / 4) + " row indices, more than its nzmax of " + std::to_string(nzmax), inflated);
        } else if (matlabClass == kChar || (matlabClass >= 6 && matlabClass <= kUInt64Class)) {
            need(1 + parts, complex ? "real and imaginary parts" : "values");
        } else if (holdsMatricesClass(matlabClass) || matlabClass == kFunction) {
            // A function handle, like a cell, holds a matrix per element: matio reads them in turn, and
            // when one fails it drops those it had read without freeing them.
            std::size_t first = 1;  // the first element after the name that is not a field list
            std::uint64_t fields = 1;
            if (matlabClass != kCell && matlabClass != kFunction) {
                if (matlabClass == kObject) {
                    need(2, "class name");
                    if (children[1].type != kInt8) bad(source, "an object's class name is not 8-bit text", inflated);
                    first = 2;
                }
                need(first + 2, "field names");
                const Child& length = children[first];
                const Child& names = children[first + 1];
                if (length.type != kInt32 || length.bytes != 4 || names.type != kInt8)
                    bad(source, "a struct's field names are not a 32-bit length and 8-bit text", inflated);
                if (length.firstWord == 0 ? names.bytes != 0 : names.bytes % length.firstWord != 0)
                    bad(source, "a struct's field names (" + std::to_string(names.bytes) + " bytes) are not a whole number of " +
                                    std::to_string(length.firstWord) + "-byte names", inflated);
                fields = length.firstWord == 0 ? 0 : names.bytes / length.firstWord;
                first += 2;
            }
            std::uint64_t matrices = 0;
            for (std::size_t k = first; k < children.size(); ++k) matrices += children[k].type == kMatrix ? 1 : 0;
            if (matrices < count * fields)
                bad(source, "a " + containerNoun(matlabClass) + " of " +
                                std::to_string(count) + " elements" +
                                (matlabClass == kCell || matlabClass == kFunction ? "" : " and " + std::to_string(fields) + " fields") +
                                " holds " + std::to_string(matrices) + " matrices",
                    inflated);
        }
    }

    static bool holdsMatricesClass(std::uint32_t matlabClass) { return matlabClass == kCell || matlabClass == kStruct || matlabClass == kObject; }
    static std::string containerNoun(std::uint32_t matlabClass) {
        return matlabClass == kCell ? "cell" : matlabClass == kStruct ? "struct" : matlabClass == kObject ? "object" : "function handle";
    }

private:
    std::ifstream& m_in;
    const std::string& m_path;
    bool m_swapped;
};

} // namespace

int checkHeader(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    unsigned char header[128];
    if (!in.read(reinterpret_cast<char*>(header), sizeof header)) fail(path, "the file is shorter than a .mat file's 128-byte header");
    const bool little = header[126] == 'I' && header[127] == 'M', swapped = header[126] == 'M' && header[127] == 'I';
    if (!little && !swapped) fail(path, "the header's endian indicator (bytes 126-127) is neither \"IM\" nor \"MI\"");
    const unsigned version = swapped ? unsigned(header[124]) << 8 | header[125] : unsigned(header[125]) << 8 | header[124];
    const std::string text(reinterpret_cast<const char*>(header), 19);
    const int says = text == "MATLAB 5.0 MAT-file" ? 5 : text == "MATLAB 7.3 MAT-file" ? 73 : 0;
    if (says == 0) fail(path, "the header does not begin \"MATLAB 5.0 MAT-file\" or \"MATLAB 7.3 MAT-file\"");
    if (version != (says == 5 ? 0x0100u : 0x0200u)) {
        char field[8];
        std::snprintf(field, sizeof field, "0x%04x", version);
        fail(path, std::string("the header's text says version ") + (says == 5 ? "5" : "7.3") + " but its version field (bytes 124-125) is " + field +
                       " (" + (says == 5 ? "0x0100" : "0x0200") + " expected)");
    }
    return says;
}

void checkVersion5Framing(const std::string& path, std::uint64_t fileSize) {
    std::ifstream in(path, std::ios::binary);
    char header[128];
    if (!in.read(header, sizeof header)) return;  // matio reports a file shorter than its header
    if (std::string(header, 19) != "MATLAB 5.0 MAT-file") return;
    const bool swapped = header[126] == 'M' && header[127] == 'I';
    Walker walker(in, path, swapped);
    FileSource file(in, fileSize);
    file.position = 128;
    walker.elements(file, fileSize - 128, true, false, 0);
}

} // namespace spyglass::matfile
