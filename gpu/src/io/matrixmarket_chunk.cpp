// Parses one chunk of a Matrix Market body: whole lines, line numbers counted from the chunk's start.
// It does not know how many entries came before, so it never checks the declared count, and for
// array layout it only reads values (positions come from the global entry number when joined).
#include "io/matrixmarket_chunks.h"
#include "io/matrixmarket_text.h"

#include "spyglass/error.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace spyglass::mm {
namespace {

// Progress and cancel are looked at every this many lines; a few MB of typical input.
constexpr std::int64_t kCheckpointLines = 1 << 16;

class ChunkParser : public TextCursor {
public:
    ChunkParser(std::string_view text, const Matrix& shell, const ReadOptions& options,
                const std::function<void(std::size_t)>& onProgress)
        : TextCursor(text), m_shell(shell), m_options(options), m_onProgress(onProgress), m_lastReported(text.data()) {}

    ChunkResult parse() {
        checkpoint();
        // Sized once for the most entries the bytes can hold: pages never written are never
        // touched, so the over-estimate costs address space, not memory (and no counting pass).
        const auto minBytes = static_cast<std::size_t>(m_shell.layout == Layout::Coordinate ? kMinCoordinateEntryBytes
                                                                                            : kMinArrayEntryBytes);
        const std::size_t lines = static_cast<std::size_t>(m_end - m_begin) / minBytes + 1;
        m_out.rowIndex.reserve(m_shell.layout == Layout::Coordinate ? lines : 0);
        m_out.colIndex.reserve(m_shell.layout == Layout::Coordinate ? lines : 0);
        if (m_shell.field != Field::Pattern) m_out.real.reserve(lines);
        if (m_shell.field == Field::Complex) m_out.imag.reserve(lines);
        try {
            if (m_shell.layout == Layout::Coordinate)
                parseCoordinateEntries();
            else
                parseArrayEntries();
            m_out.newlines = m_line;
        } catch (const LocalError& error) {
            m_out.failed = true;
            m_out.errorLine = error.line;
            m_out.errorEntry = m_out.entries;
            m_out.problem = error.problem;
        }
        if (m_onProgress) m_onProgress(static_cast<std::size_t>(m_end - m_lastReported));
        return std::move(m_out);
    }

private:
    void checkpoint() {
        if (m_options.cancel != nullptr && m_options.cancel->load(std::memory_order_relaxed)) throw CancelledError();
        if (m_onProgress) {
            m_onProgress(static_cast<std::size_t>(m_p - m_lastReported));
            m_lastReported = m_p;
        }
    }

    // Moves to the next line holding data, or to the end. Blank and '%' lines in the body are
    // tolerated (several writers emit them).
    void skipToData() {
        for (;;) {
            skipBlanks();
            if (m_p == m_end) return;
            if (*m_p == '\n') {
                ++m_p;
                ++m_line;
            } else if (*m_p == '%') {
                skipLine();
            } else {
                return;
            }
            if (++m_linesSinceCheckpoint >= kCheckpointLines) {
                m_linesSinceCheckpoint = 0;
                checkpoint();
            }
        }
    }

    void finishEntryLine() {
        skipBlanks();
        if (m_p < m_end) {
            if (*m_p != '\n') fail("unexpected text " + quoted(tokenHere()) + " after the entry (one entry per line)");
            ++m_p;
            ++m_line;
        }
        ++m_out.entries;
        if (++m_linesSinceCheckpoint >= kCheckpointLines) {
            m_linesSinceCheckpoint = 0;
            checkpoint();
        }
    }

    Index parseIndex(const char* what, Index limit) {
        if (atLineEnd()) fail(std::string("missing ") + what + " index");
        const char* start = m_p;
        std::uint64_t value = 0;
        while (m_p < m_end && isDigit(*m_p)) {
            if (value <= static_cast<std::uint64_t>(kMaxDimension)) value = value * 10 + static_cast<std::uint64_t>(*m_p - '0');
            ++m_p;
        }
        if (m_p == start || (m_p < m_end && !isBlank(*m_p) && *m_p != '\n')) {
            m_p = start;
            const std::string_view token = tokenHere();
            if (token[0] == '-') fail(std::string("negative ") + what + " index " + quoted(token));
            fail(quoted(token) + " is not a valid " + what + " index");
        }
        if (value == 0) fail(std::string(what) + " index 0: Matrix Market indices start at 1");
        if (value > static_cast<std::uint64_t>(limit)) {
            fail(std::string(what) + " index " + std::string(start, static_cast<std::size_t>(m_p - start)) +
                 " is outside 1.." + std::to_string(limit));
        }
        skipBlanks();
        return static_cast<Index>(value - 1);
    }

    double parseReal(const char* what) {
        if (atLineEnd()) fail(std::string("missing ") + what);
        double value = 0.0;
        const auto result = std::from_chars(m_p, m_end, value, std::chars_format::general);
        if (result.ec == std::errc() && (result.ptr == m_end || isBlank(*result.ptr) || *result.ptr == '\n')) {
            m_p = result.ptr;
        } else {
            const std::string_view token = tokenHere();
            if (!parseUnusualDouble(token, value)) fail(quoted(token) + " is not a number (" + what + ")");
            m_p += token.size();
        }
        skipBlanks();
        return value;
    }

    double parseInteger() {
        if (atLineEnd()) fail("missing value");
        const std::string_view token = tokenHere();
        std::string_view digits = token;
        if (digits[0] == '+') digits.remove_prefix(1);
        std::int64_t value = 0;
        const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
        if (result.ptr != digits.data() + digits.size() || digits.empty() || digits[0] == '+')
            fail(quoted(token) + " is not an integer (the field is integer)");
        if (result.ec == std::errc::result_out_of_range) fail("integer " + quoted(token) + " is out of the 64-bit range");
        m_p += token.size();
        skipBlanks();
        return static_cast<double>(value);
    }

    void parseValue() {
        switch (m_shell.field) {
        case Field::Pattern:
            if (!atLineEnd()) fail("unexpected value " + quoted(tokenHere()) + " in a pattern matrix");
            return;
        case Field::Integer: m_out.real.push_back(parseInteger()); return;
        case Field::Real:
        case Field::Double: m_out.real.push_back(parseReal("value")); return;
        case Field::Complex:
            m_out.real.push_back(parseReal("real part"));
            m_out.imag.push_back(parseReal("imaginary part"));
            return;
        }
    }

    void parseCoordinateEntries() {
        const Symmetry symmetry = m_shell.symmetry;
        for (;;) {
            skipToData();
            if (m_p == m_end) return;
            Index row = parseIndex("row", m_shell.rows);
            Index col = parseIndex("column", m_shell.cols);
            parseValue();
            if (symmetry != Symmetry::General) {
                if (row == col && symmetry == Symmetry::SkewSymmetric) {
                    fail("skew-symmetric matrix stores the diagonal entry (" + std::to_string(row + 1) + "," +
                         std::to_string(col + 1) + "); its diagonal is zero and must not be stored");
                }
                if (row < col) {
                    mirrorUpperEntry(row, col);
                    std::swap(row, col);
                }
            }
            m_out.rowIndex.push_back(row);
            m_out.colIndex.push_back(col);
            finishEntryLine();
        }
    }

    // A symmetric file stores the lower triangle; an entry above the diagonal is accepted as its
    // mirror (so the matrix keeps the lower-triangle invariant) unless the mirror is also stored:
    // that is checked once all chunks are joined.
    void mirrorUpperEntry(Index row, Index col) {
        if (m_shell.symmetry == Symmetry::SkewSymmetric && !m_out.real.empty()) m_out.real.back() = -m_out.real.back();
        if (m_shell.symmetry == Symmetry::Hermitian) m_out.imag.back() = -m_out.imag.back();
        const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(col)) << 32) |
                                  static_cast<std::uint32_t>(row);
        m_out.mirrored.push_back({key, m_out.entries, m_line});
    }

    void parseArrayEntries() {
        for (;;) {
            skipToData();
            if (m_p == m_end) return;
            parseValue();
            finishEntryLine();
        }
    }

    const Matrix& m_shell;
    const ReadOptions& m_options;
    const std::function<void(std::size_t)>& m_onProgress;
    const char* m_lastReported;
    std::int64_t m_linesSinceCheckpoint = 0;
    ChunkResult m_out;
};

} // namespace

ChunkResult parseChunk(std::string_view text, const Matrix& shell, const ReadOptions& options,
                       const std::function<void(std::size_t)>& onProgress) {
    return ChunkParser(text, shell, options, onProgress).parse();
}

std::int64_t lineOfDataLine(std::string_view text, Count dataLine) {
    std::int64_t line = 0;
    Count seen = 0;
    std::size_t k = 0;
    while (k < text.size()) {
        std::size_t lineEnd = text.find('\n', k);
        if (lineEnd == std::string_view::npos) lineEnd = text.size();
        std::size_t first = k;
        while (first < lineEnd && isBlank(text[first])) ++first;
        if (first < lineEnd && text[first] != '%') {
            if (seen == dataLine) return line;
            ++seen;
        }
        k = lineEnd + 1;
        ++line;
    }
    return -1;
}

} // namespace spyglass::mm
