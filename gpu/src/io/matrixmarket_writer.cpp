// Matrix Market writer. Values use the shortest text that reads back to the same double
// (std::to_chars), so write -> read is exact. A path ending in .gz is written gzip-compressed.
#include "core/array_positions.h"

#include "spyglass/atomicfile.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

namespace spyglass {
namespace {

void appendDouble(std::string& out, double value) {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
    out.append(buffer, result.ptr);
}

template <typename Integer> void appendInteger(std::string& out, Integer value) {
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
    out.append(buffer, result.ptr);
}

void appendIntegerValue(std::string& out, double value, Count entry) {
    // 2^63 as a double; integer fields hold whole numbers in the int64 range.
    if (std::floor(value) != value || std::fabs(value) >= 9223372036854775808.0) {
        throw InputError("cannot write entry " + std::to_string(entry) + ": value " + std::to_string(value) +
                         " is not an integer but the field is integer");
    }
    appendInteger(out, static_cast<std::int64_t>(value));
}

void checkConsistent(const Matrix& m) {
    const std::size_t n = m.rowIndex.size();
    if (m.colIndex.size() != n || (m.field != Field::Pattern && m.real.size() != n) ||
        (m.field == Field::Complex && m.imag.size() != n)) {
        throw InputError("cannot write matrix: index and value arrays have different lengths");
    }
    if (m.rows < 0 || m.cols < 0) {
        throw InputError("cannot write matrix of negative size");
    }
    if (m.layout == Layout::Array && m.field == Field::Pattern) {
        throw InputError("cannot write a pattern matrix in array format");
    }
    if (m.symmetry == Symmetry::Hermitian && m.field != Field::Complex) {
        throw InputError("cannot write a hermitian matrix whose field is not complex");
    }
    for (std::size_t k = 0; k < n; ++k) {
        if (m.rowIndex[k] < 0 || m.rowIndex[k] >= m.rows || m.colIndex[k] < 0 || m.colIndex[k] >= m.cols) {
            throw InputError("cannot write matrix: entry " + std::to_string(k) + " lies outside the " +
                             std::to_string(m.rows) + " x " + std::to_string(m.cols) + " matrix");
        }
    }
}

void appendValues(std::string& out, const Matrix& m, std::size_t k) {
    switch (m.field) {
    case Field::Pattern: return;
    case Field::Integer:
        out += ' ';
        appendIntegerValue(out, m.real[k], static_cast<Count>(k));
        return;
    case Field::Real:
    case Field::Double:
        out += ' ';
        appendDouble(out, m.real[k]);
        return;
    case Field::Complex:
        out += ' ';
        appendDouble(out, m.real[k]);
        out += ' ';
        appendDouble(out, m.imag[k]);
        return;
    }
}

// The array format lists the values column by column with nothing else on the line.
void appendArrayValue(std::string& out, const Matrix& m, std::size_t k) {
    const std::size_t start = out.size();
    appendValues(out, m, k);
    out.erase(start, 1);  // the separator appendValues puts before the first number
    out += '\n';
}

void appendHeader(std::string& out, const Matrix& m) {
    out += "%%MatrixMarket matrix ";
    out += toString(m.layout);
    out += ' ';
    out += toString(m.field);
    out += ' ';
    out += toString(m.symmetry);
    out += '\n';
    for (const std::string& comment : m.comments) {
        // A comment with an embedded newline would end the header early; keep it on '%' lines.
        std::size_t start = 0;
        for (;;) {
            const std::size_t end = comment.find('\n', start);
            out += '%';
            out.append(comment, start, end == std::string::npos ? std::string::npos : end - start);
            out += '\n';
            if (end == std::string::npos) {
                break;
            }
            start = end + 1;
        }
    }
    appendInteger(out, m.rows);
    out += ' ';
    appendInteger(out, m.cols);
    if (m.layout == Layout::Coordinate) {
        out += ' ';
        appendInteger(out, m.stored());
    }
    out += '\n';
}

Count arrayValueCount(const Matrix& m) {
    const Count n = m.rows;
    switch (m.symmetry) {
    case Symmetry::General: return static_cast<Count>(m.rows) * m.cols;
    case Symmetry::Symmetric:
    case Symmetry::Hermitian: return n * (n + 1) / 2;
    case Symmetry::SkewSymmetric: return n > 0 ? n * (n - 1) / 2 : 0;
    }
    return 0;
}

// Dense general array from an array matrix of any symmetry (mirrors filled in).
Matrix expandArray(const Matrix& m) {
    Matrix full = expandSymmetry(m);  // coordinate, general, every position exactly once
    Matrix out = m.generalHeader(Layout::Array);
    const std::size_t count = static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols);
    out.real.assign(count, 0.0);
    if (m.field == Field::Complex) {
        out.imag.assign(count, 0.0);
    }
    for (std::size_t k = 0; k < full.rowIndex.size(); ++k) {
        const std::size_t at = static_cast<std::size_t>(full.colIndex[k]) * m.rows + full.rowIndex[k];
        out.real[at] = full.real[k];
        if (m.field == Field::Complex) {
            out.imag[at] = full.imag[k];
        }
    }
    arraylayout::appendArrayPositions(out);
    return out;
}

std::string formatChecked(const Matrix& m) {
    std::string out;
    // About 24 bytes per real entry; one reservation avoids repeated copying of big outputs.
    out.reserve(128 + m.comments.size() * 64 + static_cast<std::size_t>(m.stored()) * 28);
    appendHeader(out, m);
    if (m.layout == Layout::Array) {
        if (m.stored() != arrayValueCount(m)) {
            throw InputError("cannot write array matrix: it holds " + std::to_string(m.stored()) + " values, the " +
                             std::to_string(m.rows) + " x " + std::to_string(m.cols) + " " + toString(m.symmetry) +
                             " array format needs " + std::to_string(arrayValueCount(m)));
        }
        for (std::size_t k = 0; k < m.rowIndex.size(); ++k) {
            appendArrayValue(out, m, k);
        }
        return out;
    }
    for (std::size_t k = 0; k < m.rowIndex.size(); ++k) {
        appendInteger(out, m.rowIndex[k] + 1);
        out += ' ';
        appendInteger(out, m.colIndex[k] + 1);
        appendValues(out, m, k);
        out += '\n';
    }
    return out;
}

bool endsWith(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string gzipCompress(const std::string& path, const std::string& text) {
    z_stream stream{};
    constexpr int kGzipWindowBits = 15 + 16;  // +16 asks zlib for a gzip header and trailer
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        throw Error("cannot write " + path + ": zlib initialisation failed");
    }
    std::string compressed;
    compressed.resize(deflateBound(&stream, static_cast<uLong>(text.size())) + 64);
    // zlib counts in 32-bit units, so feed and drain it in slices below 4 GiB.
    constexpr std::size_t kSlice = std::size_t(1) << 30;
    std::size_t consumed = 0;
    std::size_t produced = 0;
    int result = Z_OK;
    while (result != Z_STREAM_END) {
        const std::size_t inSlice = std::min(kSlice, text.size() - consumed);
        const std::size_t outSlice = std::min(kSlice, compressed.size() - produced);
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + consumed));
        stream.avail_in = static_cast<uInt>(inSlice);
        stream.next_out = reinterpret_cast<Bytef*>(compressed.data() + produced);
        stream.avail_out = static_cast<uInt>(outSlice);
        const bool last = consumed + inSlice == text.size();
        result = deflate(&stream, last ? Z_FINISH : Z_NO_FLUSH);
        consumed += inSlice - stream.avail_in;
        produced += outSlice - stream.avail_out;
        if (result != Z_OK && result != Z_STREAM_END && result != Z_BUF_ERROR) {
            break;
        }
        if (outSlice - stream.avail_out == 0 && inSlice - stream.avail_in == 0 && result != Z_STREAM_END) {
            result = Z_BUF_ERROR;  // no progress: the output estimate was wrong
            break;
        }
    }
    deflateEnd(&stream);
    if (result != Z_STREAM_END) {
        throw Error("cannot write " + path + ": gzip compression failed");
    }
    compressed.resize(produced);
    return compressed;
}

} // namespace

std::string formatMatrixMarket(const Matrix& matrix, const WriteOptions& options) {
    checkConsistent(matrix);
    if (options.expandSymmetry && matrix.symmetry != Symmetry::General) {
        return formatChecked(matrix.layout == Layout::Array ? expandArray(matrix) : expandSymmetry(matrix));
    }
    return formatChecked(matrix);
}

void writeMatrixMarket(const std::string& path, const Matrix& matrix, const WriteOptions& options) {
    const std::string text = formatMatrixMarket(matrix, options);
    if (endsWith(path, ".gz")) {
        writeFileAtomically(path, gzipCompress(path, text));
    } else {
        writeFileAtomically(path, text);
    }
}

} // namespace spyglass
