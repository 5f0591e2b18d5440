// .npz (scipy.sparse.save_npz) and .npy (numpy.save) into the file form (see spyglass/npz.h).
// The .npy format: NumPy's NEP 1 (magic "\x93NUMPY", version, header length, a Python dict literal
// with descr, fortran_order and shape, then the raw array).
#include "io/zip_archive.h"
#include "spyglass/error.h"
#include "spyglass/npz.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

namespace spyglass {

namespace {

constexpr std::string_view kNpyMagic = "\x93NUMPY";
// Members are unpacked whole; this bounds what one malformed size field can make us allocate.
constexpr std::uint64_t kMaxMemberBytes = std::uint64_t(1) << 36;
// Members larger than this have their .npy header read first (from at most kPeekBytes: a version 1
// header is at most 64 KiB).
constexpr std::uint64_t kPeekAbove = std::uint64_t(1) << 20;
constexpr std::size_t kPeekBytes = std::size_t(1) << 17;

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw InputError(where + ": " + what); }

// One array of a .npy: its element type, shape and raw bytes.
struct NpyArray {
    char kind = 'f';  // f float, i signed, u unsigned, b bool, c complex, S bytes, U unicode
    int itemSize = 8;
    bool bigEndian = false, fortran = false;
    std::vector<std::uint64_t> shape;
    std::string_view data;
    std::string where;

    std::uint64_t count() const {
        std::uint64_t n = 1;
        for (std::uint64_t d : shape) n *= d;
        return n;
    }
    std::uint64_t raw(std::uint64_t i, int width, int offset = 0) const {
        const unsigned char* p = reinterpret_cast<const unsigned char*>(data.data()) + i * itemSize + offset;
        std::uint64_t v = 0;
        for (int b = 0; b < width; ++b) v |= std::uint64_t(p[bigEndian ? width - 1 - b : b]) << (8 * b);
        return v;
    }
    static double half(std::uint64_t h) {
        const int exponent = int(h >> 10) & 0x1F, mantissa = int(h & 0x3FF);
        const double sign = (h & 0x8000) ? -1.0 : 1.0;
        if (exponent == 0) return sign * std::ldexp(mantissa, -24);
        if (exponent == 31) return mantissa ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
        return sign * std::ldexp(mantissa + 1024, exponent - 25);
    }
    static double floatOf(std::uint64_t bits, int width) {
        if (width == 2) return half(bits);
        if (width == 4) {
            const std::uint32_t b = static_cast<std::uint32_t>(bits);
            float f;
            std::memcpy(&f, &b, 4);
            return f;
        }
        double d;
        std::memcpy(&d, &bits, 8);
        return d;
    }
    double real(std::uint64_t i) const {
        switch (kind) {
        case 'f': return floatOf(raw(i, itemSize), itemSize);
        case 'c': return floatOf(raw(i, itemSize / 2), itemSize / 2);
        case 'b': return raw(i, 1) ? 1.0 : 0.0;
        case 'u': return double(raw(i, itemSize));
        case 'i': return double(signedAt(i));
        }
        return 0;
    }
    double imag(std::uint64_t i) const { return kind == 'c' ? floatOf(raw(i, itemSize / 2, itemSize / 2), itemSize / 2) : 0.0; }
    std::int64_t signedAt(std::uint64_t i) const {
        const std::uint64_t v = raw(i, itemSize);
        if (itemSize == 8) return static_cast<std::int64_t>(v);
        const std::uint64_t sign = std::uint64_t(1) << (8 * itemSize - 1);
        return static_cast<std::int64_t>((v ^ sign) - sign);
    }
    // An index array's element, which must be an integer in [0, limit).
    std::int64_t index(std::uint64_t i, std::int64_t limit, const char* what) const {
        std::int64_t v = 0;
        if (kind == 'i') v = signedAt(i);
        else if (kind == 'u') {
            const std::uint64_t u = raw(i, itemSize);
            v = u > std::uint64_t(std::numeric_limits<std::int64_t>::max()) ? -1 : std::int64_t(u);
        } else fail(where, std::string(what) + " is not an integer array");
        if (v < 0 || v >= limit)
            fail(where, std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(v) + " is outside [0, " + std::to_string(limit) + ")");
        return v;
    }
    std::string text() const {  // a 0-d or 1-element S or U array (the format member)
        if (kind == 'S') {
            const std::string_view s = data.substr(0, std::size_t(itemSize));
            return std::string(s.substr(0, s.find('\0')));
        }
        if (kind == 'U') {
            std::string s;
            for (int k = 0; k + 4 <= itemSize; k += 4) {
                const std::uint64_t c = raw(0, 4, k);
                if (c == 0) break;
                s.push_back(c < 128 ? char(c) : '?');
            }
            return s;
        }
        fail(where, "expected a string array");
    }
};

// The dict literal of a .npy header: {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
std::string_view valueAfter(std::string_view header, std::string_view key, const std::string& where) {
    const std::string quoted = "'" + std::string(key) + "'";
    const auto k = header.find(quoted);
    if (k == std::string_view::npos) fail(where, "the .npy header has no " + std::string(key));
    auto colon = header.find(':', k + quoted.size());
    if (colon == std::string_view::npos) fail(where, "the .npy header has no value for " + std::string(key));
    std::string_view rest = header.substr(colon + 1);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    return rest;
}

// headerOnly: bytes may be just the first part of the file; the array's data is not looked at, and
// dataEnd tells where the header says it ends.
NpyArray parseNpyArray(std::string_view bytes, const std::string& where, bool headerOnly = false, std::uint64_t* dataEnd = nullptr) {
    if (bytes.size() < 10 || bytes.substr(0, 6) != kNpyMagic) fail(where, "not a .npy array (no \\x93NUMPY magic)");
    const int major = static_cast<unsigned char>(bytes[6]);
    std::uint64_t headerLength = 0, headerStart = 0;
    if (major == 1) {
        headerLength = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
        headerStart = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) fail(where, "the .npy header is cut short");
        for (int b = 3; b >= 0; --b) headerLength = (headerLength << 8) | static_cast<unsigned char>(bytes[8 + b]);
        headerStart = 12;
    } else {
        fail(where, ".npy version " + std::to_string(major) + " is not known");
    }
    if (headerLength > bytes.size() - headerStart) fail(where, "the .npy header runs past the data (byte " + std::to_string(headerStart) + ")");
    const std::string_view header = bytes.substr(headerStart, headerLength);
    NpyArray a;
    a.where = where;
    const std::string_view descr = valueAfter(header, "descr", where);
    if (descr.empty() || descr.front() != '\'') fail(where, "descr is not a simple type (structured arrays are not matrices)");
    const auto close = descr.find('\'', 1);
    if (close == std::string_view::npos || close < 3) fail(where, "descr is not a type string");
    const std::string_view type = descr.substr(1, close - 1);
    a.bigEndian = type[0] == '>';
    if (type[0] != '<' && type[0] != '>' && type[0] != '|' && type[0] != '=') fail(where, "descr " + std::string(type) + ": unknown byte order");
    a.kind = type[1];
    int size = 0;
    for (char c : type.substr(2)) {
        if (c < '0' || c > '9' || size > 100000) fail(where, "descr " + std::string(type) + ": bad item size");
        size = size * 10 + (c - '0');
    }
    a.itemSize = size;
    const bool ok = (a.kind == 'f' && (size == 2 || size == 4 || size == 8)) || (a.kind == 'c' && (size == 8 || size == 16)) ||
                    ((a.kind == 'i' || a.kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) ||
                    (a.kind == 'b' && size == 1) || (a.kind == 'S' && size >= 1) || (a.kind == 'U' && size >= 4 && size % 4 == 0);
    if (!ok) fail(where, "descr " + std::string(type) + " is not a numeric type Spyglass reads (float, int, uint, bool, complex)");
    a.fortran = valueAfter(header, "fortran_order", where).substr(0, 4) == "True";
    const std::string_view shape = valueAfter(header, "shape", where);
    if (shape.empty() || shape.front() != '(') fail(where, "shape is not a tuple");
    const auto end = shape.find(')');
    if (end == std::string_view::npos) fail(where, "shape is not closed");
    std::uint64_t value = 0;
    bool digits = false;
    for (char c : shape.substr(1, end - 1)) {
        if (c >= '0' && c <= '9') {
            if (value > (std::uint64_t(1) << 50)) fail(where, "a shape dimension is too large");
            value = value * 10 + std::uint64_t(c - '0');
            digits = true;
        } else if (c == ',') {
            if (digits) a.shape.push_back(value);
            value = 0;
            digits = false;
        } else if (c != ' ' && c != 'L') {
            fail(where, "shape holds '" + std::string(1, c) + "'");
        }
    }
    if (digits) a.shape.push_back(value);
    if (a.shape.size() > 3) fail(where, "arrays of more than 3 dimensions are not matrices");
    std::uint64_t n = 1;
    for (std::uint64_t d : a.shape) {
        if (d != 0 && n > std::numeric_limits<std::uint64_t>::max() / d / std::uint64_t(a.itemSize)) fail(where, "the shape overflows");
        n *= d;
    }
    const std::uint64_t dataStart = headerStart + headerLength;
    if (dataEnd != nullptr) *dataEnd = dataStart + n * std::uint64_t(a.itemSize);
    if (headerOnly) return a;
    if (n * std::uint64_t(a.itemSize) != bytes.size() - dataStart)
        fail(where, "the shape needs " + std::to_string(n * std::uint64_t(a.itemSize)) + " bytes of data, the array has " +
                        std::to_string(bytes.size() - dataStart) + " (byte " + std::to_string(dataStart) + ")");
    a.data = bytes.substr(dataStart);
    return a;
}

Field fieldOf(const NpyArray& values, bool allTrue) {
    switch (values.kind) {
    case 'c': return Field::Complex;
    case 'i':
    case 'u': return Field::Integer;
    case 'b': return allTrue ? Field::Pattern : Field::Integer;
    default: return Field::Real;
    }
}

void checkEntries(Count entries, Count maxEntries, const std::string& where) {
    if (maxEntries > 0 && entries > maxEntries)
        fail(where, std::to_string(entries) + " entries are more than the limit of " + std::to_string(maxEntries));
}

Index dimension(std::int64_t v, const char* what, const std::string& where) {
    if (v < 0 || v > std::numeric_limits<Index>::max())
        fail(where, std::string(what) + " " + std::to_string(v) + " is outside 0.." + std::to_string(std::numeric_limits<Index>::max()));
    return static_cast<Index>(v);
}

// Appends entry (r, c) with value k of `values` (pattern matrices keep no values).
void push(Matrix& m, Index r, Index c, const NpyArray& values, std::uint64_t k) {
    m.rowIndex.push_back(r);
    m.colIndex.push_back(c);
    if (m.field == Field::Pattern) return;
    m.real.push_back(values.real(k));
    if (m.field == Field::Complex) m.imag.push_back(values.imag(k));
}

} // namespace

bool looksLikeNpz(std::string_view head) { return head.size() >= 4 && head.substr(0, 4) == std::string_view("PK\x03\x04", 4); }
bool looksLikeNpy(std::string_view head) { return head.size() >= 6 && head.substr(0, 6) == kNpyMagic; }

Matrix parseNpy(std::string_view bytes, const std::string& where, Count maxEntries) {
    const NpyArray a = parseNpyArray(bytes, where);
    if (a.kind == 'S' || a.kind == 'U') fail(where, "a string array is not a matrix");
    if (a.shape.empty() || a.shape.size() > 2) fail(where, "a dense matrix is a 1-D or 2-D array (this one has " + std::to_string(a.shape.size()) + " dimensions)");
    Matrix m;
    m.layout = Layout::Array;
    m.rows = dimension(std::int64_t(a.shape[0]), "rows", where);
    m.cols = a.shape.size() == 2 ? dimension(std::int64_t(a.shape[1]), "columns", where) : 1;
    const Count n = Count(m.rows) * m.cols;
    checkEntries(n, maxEntries, where);
    // A dense bool array is 0/1 integers (an array has no pattern form).
    m.field = a.kind == 'c' ? Field::Complex : (a.kind == 'f' ? Field::Real : Field::Integer);
    m.rowIndex.reserve(std::size_t(n));
    m.colIndex.reserve(std::size_t(n));
    m.real.reserve(std::size_t(n));
    for (Index j = 0; j < m.cols; ++j)
        for (Index i = 0; i < m.rows; ++i) {
            // Column-major as Matrix Market arrays list them; the file is C order unless fortran_order.
            const std::uint64_t k = a.fortran ? std::uint64_t(j) * m.rows + i : std::uint64_t(i) * m.cols + j;
            m.rowIndex.push_back(i);
            m.colIndex.push_back(j);
            m.real.push_back(a.real(k));
            if (m.field == Field::Complex) m.imag.push_back(a.imag(k));
        }
    return m;
}

Matrix parseNpz(std::string_view bytes, const std::string& where, Count maxEntries) {
    std::map<std::string, zip::Member> members;
    for (zip::Member& member : zip::listMembers(bytes, where)) members[member.name] = member;
    std::map<std::string, std::string> unpacked;  // keeps the bytes the arrays point into
    auto array = [&](const std::string& name, bool required) -> std::optional<NpyArray> {
        const auto it = members.find(name + ".npy");
        if (it == members.end()) {
            if (required) fail(where, "no member " + name + ".npy (not a scipy.sparse.save_npz file?)");
            return std::nullopt;
        }
        // Before unpacking: an index or value array cannot hold more than 16 bytes per entry.
        if (maxEntries > 0 && it->second.size > std::uint64_t(maxEntries) * 16 + 4096) checkEntries(Count(it->second.size / 16), maxEntries, where);
        // A large member's .npy header, from its first bytes, must promise what the archive declares
        // for the member: a small array followed by megabytes of deflated zeros is refused before
        // the zeros are unpacked.
        if (it->second.size > kPeekAbove) {
            const std::string head = zip::extractPrefix(bytes, it->second, where, kPeekBytes);
            std::uint64_t promised = 0;
            parseNpyArray(head, where + ": " + name + ".npy", true, &promised);
            if (promised != it->second.size)
                fail(where, name + ".npy: its header promises " + std::to_string(promised) + " bytes, the archive declares " +
                                std::to_string(it->second.size) + " for it");
        }
        std::string& data = unpacked[name] = zip::extract(bytes, it->second, where, kMaxMemberBytes);
        return parseNpyArray(data, where + ": " + name + ".npy");
    };
    // An array's header without its data: a large member's from its first bytes, a small one unpacked.
    std::map<std::string, std::string> peeked;
    auto declared = [&](const std::string& name) -> std::optional<NpyArray> {
        const auto it = members.find(name + ".npy");
        if (it == members.end()) return std::nullopt;
        if (it->second.size <= kPeekAbove) return array(name, true);
        std::string& head = peeked[name] = zip::extractPrefix(bytes, it->second, where, kPeekBytes);
        return parseNpyArray(head, where + ": " + name + ".npy", true);
    };
    const std::string format = array("format", true)->text();
    const NpyArray shape = *array("shape", true);
    if (shape.count() != 2) fail(where, "shape.npy must hold 2 numbers (rows, columns)");
    Matrix m;
    m.rows = dimension(shape.kind == 'i' ? shape.signedAt(0) : std::int64_t(shape.real(0)), "rows", where);
    m.cols = dimension(shape.kind == 'i' ? shape.signedAt(1) : std::int64_t(shape.real(1)), "columns", where);
    // The members must agree with each other before any large one is unpacked: each can be
    // consistent alone (its header promises what the archive declares) while a 10^8-value data.npy
    // sits beside a 2-entry indptr.npy, and unpacking first would cost up to 1032 x the file's size.
    {
        const std::optional<NpyArray> values = declared("data");
        if (!values) fail(where, "no member data.npy (not a scipy.sparse.save_npz file?)");
        auto agree = [&](const std::string& name, std::uint64_t expected, const std::string& because) {
            const std::optional<NpyArray> other = declared(name);
            if (other && other->count() != expected)
                fail(where, name + ".npy has " + std::to_string(other->count()) + " entries, " + because + " needs " + std::to_string(expected));
        };
        const std::uint64_t n = values->count();
        if (format == "csr" || format == "csc") {
            agree("indices", n, "data.npy's length");
            agree("indptr", std::uint64_t(format == "csr" ? m.rows : m.cols) + 1, format + " of this shape");
        } else if (format == "coo") {
            agree("row", n, "data.npy's length");
            agree("col", n, "data.npy's length");
            agree("coords", 2 * n, "2 x data.npy's length");
        } else if (format == "bsr" && values->shape.size() == 3) {
            agree("indices", values->shape[0], "data.npy's block count");
        } else if (format == "dia" && values->shape.size() == 2) {
            agree("offsets", values->shape[0], "data.npy's diagonal count");
        }
    }
    const NpyArray data = *array("data", true);
    if (data.kind == 'S' || data.kind == 'U') fail(where, "data.npy holds strings");
    bool allTrue = data.kind == 'b';
    for (std::uint64_t k = 0; allTrue && k < data.count(); ++k) allTrue = data.raw(k, 1) != 0;
    m.field = fieldOf(data, allTrue);

    if (format == "csr" || format == "csc") {
        const bool rowsMajor = format == "csr";
        const NpyArray indices = *array("indices", true), indptr = *array("indptr", true);
        const Index major = rowsMajor ? m.rows : m.cols, minor = rowsMajor ? m.cols : m.rows;
        if (indptr.count() != std::uint64_t(major) + 1)
            fail(where, "indptr has " + std::to_string(indptr.count()) + " entries, " + format + " of this shape needs " + std::to_string(major + 1));
        const std::int64_t nnz = std::int64_t(std::min(indices.count(), data.count()));
        checkEntries(nnz, maxEntries, where);
        std::int64_t previous = indptr.index(0, nnz + 1, "indptr");
        for (Index a = 0; a < major; ++a) {
            const std::int64_t next = indptr.index(std::uint64_t(a) + 1, nnz + 1, "indptr");
            if (next < previous) fail(where, "indptr decreases at " + std::to_string(a + 1));
            for (std::int64_t k = previous; k < next; ++k) {
                const Index b = static_cast<Index>(indices.index(std::uint64_t(k), minor, "indices"));
                push(m, rowsMajor ? a : b, rowsMajor ? b : a, data, std::uint64_t(k));
            }
            previous = next;
        }
    } else if (format == "coo") {
        std::optional<NpyArray> row = array("row", false), col = array("col", false);
        std::optional<NpyArray> coords;
        if (!row || !col) {
            coords = array("coords", true);  // newer SciPy writes one 2 x nnz array
            if (coords->shape.size() != 2 || coords->shape[0] != 2) fail(where, "coords.npy is not 2 x nnz");
        }
        const std::uint64_t nnz = data.count();
        checkEntries(Count(nnz), maxEntries, where);
        if ((row && (row->count() != nnz || col->count() != nnz)) || (coords && coords->shape[1] != nnz))
            fail(where, "the coordinate arrays and data.npy differ in length");
        for (std::uint64_t k = 0; k < nnz; ++k) {
            const Index r = static_cast<Index>(row ? row->index(k, m.rows, "row") : coords->index(k, m.rows, "coords (rows)"));
            const Index c = static_cast<Index>(row ? col->index(k, m.cols, "col") : coords->index(nnz + k, m.cols, "coords (columns)"));
            push(m, r, c, data, k);
        }
    } else if (format == "bsr") {
        const NpyArray indices = *array("indices", true), indptr = *array("indptr", true);
        if (data.shape.size() != 3 || data.shape[1] == 0 || data.shape[2] == 0) fail(where, "bsr data.npy is not blocks x R x C");
        const std::int64_t R = std::int64_t(data.shape[1]), C = std::int64_t(data.shape[2]);
        if (m.rows % R || m.cols % C) fail(where, "the shape is not a multiple of the " + std::to_string(R) + " x " + std::to_string(C) + " blocks");
        const Index blockRows = static_cast<Index>(m.rows / R), blockCols = static_cast<Index>(m.cols / C);
        const std::int64_t blocks = std::int64_t(std::min<std::uint64_t>(indices.count(), data.shape[0]));
        checkEntries(blocks * R * C, maxEntries, where);
        if (indptr.count() != std::uint64_t(blockRows) + 1) fail(where, "indptr does not have one entry per block row + 1");
        std::int64_t previous = indptr.index(0, blocks + 1, "indptr");
        for (Index br = 0; br < blockRows; ++br) {
            const std::int64_t next = indptr.index(std::uint64_t(br) + 1, blocks + 1, "indptr");
            if (next < previous) fail(where, "indptr decreases at " + std::to_string(br + 1));
            for (std::int64_t b = previous; b < next; ++b) {
                const std::int64_t bc = indices.index(std::uint64_t(b), blockCols, "indices");
                for (std::int64_t i = 0; i < R; ++i)
                    for (std::int64_t j = 0; j < C; ++j)
                        push(m, static_cast<Index>(br * R + i), static_cast<Index>(bc * C + j), data, std::uint64_t((b * R + i) * C + j));
            }
            previous = next;
        }
    } else if (format == "dia") {
        const NpyArray offsets = *array("offsets", true);
        if (data.shape.size() != 2 || data.shape[0] != offsets.count()) fail(where, "dia data.npy is not diagonals x length");
        const std::uint64_t length = data.shape[1];
        checkEntries(Count(data.count()), maxEntries, where);
        for (std::uint64_t d = 0; d < offsets.count(); ++d) {
            if (offsets.kind != 'i' && offsets.kind != 'u') fail(where, "offsets.npy is not an integer array");
            const std::int64_t k = offsets.kind == 'i' ? offsets.signedAt(d) : std::int64_t(offsets.raw(d, offsets.itemSize));
            // scipy's layout: data[d, j] is entry (j - k, j); explicit zeros are padding.
            for (std::int64_t j = std::max<std::int64_t>(0, k); j < std::min<std::int64_t>(m.cols, std::int64_t(length)); ++j) {
                const std::int64_t i = j - k;
                if (i < 0 || i >= m.rows) continue;
                const std::uint64_t at = d * length + std::uint64_t(j);
                if (data.real(at) == 0 && data.imag(at) == 0) continue;
                push(m, static_cast<Index>(i), static_cast<Index>(j), data, at);
            }
        }
    } else {
        fail(where, "format '" + format + "' (Spyglass reads csr, csc, coo, bsr and dia)");
    }
    return m;
}

} // namespace spyglass
