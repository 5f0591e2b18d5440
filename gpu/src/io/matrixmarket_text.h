#pragma once
// Character-level helpers shared by the Matrix Market header and chunk parsers: a cursor over text
// that counts lines, and the number spellings the format allows.
#include "spyglass/matrix.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

namespace spyglass::mm {

constexpr Count kMaxDimension = std::numeric_limits<Index>::max();
// Never promise more entries to the allocator than the bytes could hold: the shortest coordinate
// entry ("1 1\n") has 4 bytes, the shortest array entry ("1\n") 2 (the last may lack its newline).
constexpr Count kMinCoordinateEntryBytes = 4;
constexpr Count kMinArrayEntryBytes = 2;

inline bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
inline bool isDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// 'token', cut to 40 characters, for messages.
std::string quoted(std::string_view token);

// from_chars rejects a leading '+' and Fortran 'D' exponents, and signals overflow instead of
// returning inf; this slow path handles those spellings so the fast path stays simple.
bool parseUnusualDouble(std::string_view token, double& value);

// A problem at a line counted from the start of the text the cursor walks (0-based).
struct LocalError {
    std::int64_t line;
    std::string problem;
};

// Walks text, counting newlines; fail() throws LocalError at the current line.
class TextCursor {
public:
    explicit TextCursor(std::string_view text)
        : m_begin(text.data()), m_p(text.data()), m_end(text.data() + text.size()) {}

    [[noreturn]] void fail(const std::string& problem) const { throw LocalError{m_line, problem}; }

    // The current line without its terminator; the cursor stays put.
    std::string_view currentLine() const {
        const char* lineEnd = static_cast<const char*>(std::memchr(m_p, '\n', static_cast<std::size_t>(m_end - m_p)));
        if (lineEnd == nullptr) lineEnd = m_end;
        std::string_view line(m_p, static_cast<std::size_t>(lineEnd - m_p));
        while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        return line;
    }
    void skipLine() {
        const char* lineEnd = static_cast<const char*>(std::memchr(m_p, '\n', static_cast<std::size_t>(m_end - m_p)));
        if (lineEnd == nullptr) {
            m_p = m_end;
        } else {
            m_p = lineEnd + 1;
            ++m_line;
        }
    }
    void skipBlanks() {
        while (m_p < m_end && isBlank(*m_p)) ++m_p;
    }
    bool atLineEnd() const { return m_p == m_end || *m_p == '\n'; }
    std::string_view tokenHere() const {
        const char* q = m_p;
        while (q < m_end && !isBlank(*q) && *q != '\n') ++q;
        return std::string_view(m_p, static_cast<std::size_t>(q - m_p));
    }

protected:
    const char* m_begin;
    const char* m_p;
    const char* m_end;
    std::int64_t m_line = 0;
};

} // namespace spyglass::mm
