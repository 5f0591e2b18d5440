// Matrix Market header parser (banner, comments, size line) and the text helpers the chunk parser
// shares. Hand-written and strict: every deviation from the format is a ParseError with the line.
// The body is parsed in chunks (matrixmarket_chunk.cpp) and joined (matrixmarket_parallel.cpp).
#include "io/matrixmarket_chunks.h"
#include "io/matrixmarket_text.h"

#include "spyglass/error.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace spyglass::mm {

std::string quoted(std::string_view token) {
    constexpr std::size_t kMaxShown = 40;
    std::string shown(token.substr(0, kMaxShown));
    if (token.size() > kMaxShown) {
        shown += "...";
    }
    return "'" + shown + "'";
}

bool parseUnusualDouble(std::string_view token, double& value) {
    std::string text(token);
    bool negative = false;
    std::size_t start = 0;
    if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
        negative = text[0] == '-';
        start = 1;
    }
    std::string body = text.substr(start);
    if (body.empty() || body[0] == '+' || body[0] == '-') {
        return false;
    }
    std::string lowered;
    for (char c : body) {
        lowered += lower(c);
    }
    if (lowered == "inf" || lowered == "infinity") {
        value = negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
        return true;
    }
    if (lowered == "nan") {
        value = std::numeric_limits<double>::quiet_NaN();
        return true;
    }
    for (char& c : body) {
        if (c == 'd' || c == 'D') {
            c = 'e';
        }
    }
    const char* first = body.data();
    const char* last = body.data() + body.size();
    double parsed = 0.0;
    const auto result = std::from_chars(first, last, parsed, std::chars_format::general);
    if (result.ptr != last) {
        return false;
    }
    if (result.ec == std::errc::result_out_of_range) {
        // Too large becomes inf and too small becomes zero, as strtod would do.
        const std::size_t exponentAt = lowered.find('e') != std::string::npos ? lowered.find('e') : lowered.find('d');
        bool tiny = false;
        if (exponentAt != std::string::npos) {
            tiny = exponentAt + 1 < lowered.size() && lowered[exponentAt + 1] == '-';
        } else {
            tiny = lowered[0] == '.' || (lowered.size() > 1 && lowered[0] == '0' && lowered[1] == '.');
        }
        parsed = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    } else if (result.ec != std::errc()) {
        return false;
    }
    value = negative ? -parsed : parsed;
    return true;
}

namespace {

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k) {
        if (lower(a[k]) != lower(b[k])) return false;
    }
    return true;
}

// The banner's words are the names toString prints (spyglass/matrix.h), so the enumerations parse
// by that one table: the enumerator up to Last named `word` (any case), false when none is.
template <auto Last>
bool parseBannerWord(std::string_view word, decltype(Last)& out) {
    using Enum = decltype(Last);
    for (int value = 0; value <= static_cast<int>(Last); ++value) {
        if (equalsIgnoringCase(word, toString(static_cast<Enum>(value)))) {
            out = static_cast<Enum>(value);
            return true;
        }
    }
    return false;
}

std::vector<std::string_view> splitWords(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t k = 0;
    while (k < line.size()) {
        while (k < line.size() && isBlank(line[k])) {
            ++k;
        }
        const std::size_t start = k;
        while (k < line.size() && !isBlank(line[k])) {
            ++k;
        }
        if (k > start) {
            words.push_back(line.substr(start, k - start));
        }
    }
    return words;
}

class HeaderParser : public TextCursor {
public:
    HeaderParser(std::string_view text, const ReadOptions& options) : TextCursor(text), m_options(options) {}

    Header parse() {
        parseBanner();
        parseCommentsAndSize();
        m_header.bodyOffset = static_cast<std::size_t>(m_p - m_begin);
        m_header.bodyLine = m_line + 1;
        return std::move(m_header);
    }

private:
    void parseBanner() {
        if (m_end - m_p >= 3 && std::memcmp(m_p, "\xEF\xBB\xBF", 3) == 0) {
            m_p += 3;  // a UTF-8 byte order mark some editors add
        }
        if (m_p == m_end) {
            fail("empty input: missing %%MatrixMarket banner");
        }
        const std::vector<std::string_view> words = splitWords(currentLine());
        if (words.empty() || !equalsIgnoringCase(words[0], "%%MatrixMarket")) {
            fail("missing %%MatrixMarket banner on the first line");
        }
        if (words.size() < 5) {
            fail("banner needs object, format, field and symmetry after %%MatrixMarket");
        }
        if (words.size() > 5) {
            fail("unexpected text " + quoted(words[5]) + " after the banner");
        }
        if (!equalsIgnoringCase(words[1], "matrix")) {
            fail("unsupported object " + quoted(words[1]) + " in banner (only 'matrix')");
        }
        if (!parseBannerWord<Layout::Array>(words[2], m_header.shell.layout)) {
            fail("unknown format " + quoted(words[2]) + " in banner (coordinate or array)");
        }
        if (!parseBannerWord<Field::Pattern>(words[3], m_header.shell.field)) {
            fail("unknown field " + quoted(words[3]) + " in banner (real, double, integer, complex or pattern)");
        }
        if (!parseBannerWord<Symmetry::Hermitian>(words[4], m_header.shell.symmetry)) {
            fail("unknown symmetry " + quoted(words[4]) +
                 " in banner (general, symmetric, skew-symmetric or hermitian)");
        }
        if (m_header.shell.layout == Layout::Array && m_header.shell.field == Field::Pattern) {
            fail("a pattern matrix cannot use the array format");
        }
        if (m_header.shell.symmetry == Symmetry::Hermitian && m_header.shell.field != Field::Complex) {
            fail(std::string("hermitian needs a complex field, not ") + toString(m_header.shell.field));
        }
        if (m_header.shell.symmetry == Symmetry::SkewSymmetric && m_header.shell.field == Field::Pattern) {
            fail("a pattern matrix cannot be skew-symmetric (it has no signs)");
        }
        skipLine();
    }

    Count parseSizeNumber(const char* what) {
        skipBlanks();
        if (atLineEnd()) {
            fail(std::string("size line is missing the ") + what);
        }
        const std::string_view token = tokenHere();
        if (token[0] == '-') {
            fail(std::string("negative ") + what + " " + quoted(token) + " in the size line");
        }
        Count value = 0;
        for (char c : token) {
            if (!isDigit(c)) {
                fail(std::string("size line: ") + quoted(token) + " is not a whole number (" + what + ")");
            }
            if (value > (std::numeric_limits<Count>::max() - 9) / 10) {
                fail(std::string("size line: ") + what + " " + quoted(token) + " is too large");
            }
            value = value * 10 + (c - '0');
        }
        m_p += token.size();
        return value;
    }

    void parseCommentsAndSize() {
        for (;;) {
            if (m_p == m_end) {
                fail("missing size line");
            }
            skipBlanks();
            if (m_p == m_end) {
                fail("missing size line");
            }
            if (*m_p == '\n') {
                skipLine();
                continue;
            }
            if (*m_p == '%') {
                ++m_p;
                m_header.shell.comments.emplace_back(currentLine());
                skipLine();
                continue;
            }
            break;
        }
        const Count rows = parseSizeNumber("row count");
        const Count cols = parseSizeNumber("column count");
        Count declared = 0;
        if (m_header.shell.layout == Layout::Coordinate) {
            declared = parseSizeNumber("entry count");
        }
        skipBlanks();
        if (!atLineEnd()) {
            fail("unexpected text " + quoted(tokenHere()) + " after the size line");
        }
        if (rows > kMaxDimension || cols > kMaxDimension) {
            fail("size " + std::to_string(rows) + " x " + std::to_string(cols) + " exceeds the limit of " +
                 std::to_string(kMaxDimension) + " per dimension");
        }
        if (m_header.shell.symmetry != Symmetry::General && rows != cols) {
            fail(std::string(toString(m_header.shell.symmetry)) + " matrix must be square, size line says " +
                 std::to_string(rows) + " x " + std::to_string(cols));
        }
        m_header.shell.rows = static_cast<Index>(rows);
        m_header.shell.cols = static_cast<Index>(cols);
        if (m_header.shell.layout == Layout::Array) {
            switch (m_header.shell.symmetry) {
            case Symmetry::General: declared = rows * cols; break;
            case Symmetry::Symmetric:
            case Symmetry::Hermitian: declared = rows * (rows + 1) / 2; break;
            case Symmetry::SkewSymmetric: declared = rows * (rows - (rows > 0 ? 1 : 0)) / 2; break;
            }
        }
        if (declared > m_options.maxEntries) {
            fail("declares " + std::to_string(declared) + " entries, more than the limit of " +
                 std::to_string(m_options.maxEntries));
        }
        m_header.declared = declared;
        skipLine();
    }

    const ReadOptions& m_options;
    Header m_header;
};

} // namespace

Header parseHeader(std::string_view text, const std::string& source, const ReadOptions& options) {
    try {
        return HeaderParser(text, options).parse();
    } catch (const LocalError& error) {
        throw ParseError(source, error.line + 1, error.problem);
    }
}

std::size_t bodyOffsetIfComplete(std::string_view text) {
    // Banner line, then comment and blank lines, then the size line: the body starts after its newline.
    std::size_t lineStart = 0;
    bool bannerSeen = false;
    while (lineStart < text.size()) {
        const std::size_t lineEnd = text.find('\n', lineStart);
        if (lineEnd == std::string_view::npos) return std::string_view::npos;
        if (!bannerSeen) {
            bannerSeen = true;
        } else {
            std::size_t k = lineStart;
            while (k < lineEnd && isBlank(text[k])) ++k;
            if (k < lineEnd && text[k] != '%') return lineEnd + 1;  // the size line
        }
        lineStart = lineEnd + 1;
    }
    return std::string_view::npos;
}

} // namespace spyglass::mm
