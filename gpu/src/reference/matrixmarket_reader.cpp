// Matrix Market text parser. Hand-written for speed (no iostreams per entry, std::from_chars for
// numbers) and strict: every deviation from the format is a ParseError with the 1-based line.
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace spyglass {
namespace {

constexpr Count kMaxDimension = std::numeric_limits<Index>::max();
// Progress and cancel are looked at every this many lines; a few MB of typical input.
constexpr std::int64_t kCheckpointLines = 1 << 16;
// Never promise more entries to the allocator than the remaining bytes could hold: the shortest
// coordinate entry ("1 1\n") has 4 bytes, the shortest array entry ("1\n") 2.
constexpr Count kMinCoordinateEntryBytes = 4;
constexpr Count kMinArrayEntryBytes = 2;

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool isDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t k = 0; k < a.size(); ++k) {
        if (lower(a[k]) != lower(b[k])) {
            return false;
        }
    }
    return true;
}

std::string quoted(std::string_view token) {
    constexpr std::size_t kMaxShown = 40;
    std::string shown(token.substr(0, kMaxShown));
    if (token.size() > kMaxShown) {
        shown += "...";
    }
    return "'" + shown + "'";
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

// from_chars rejects a leading '+' and Fortran 'D' exponents, and signals overflow instead of
// returning inf; this slow path handles those spellings so the fast path stays simple.
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

class MatrixMarketParser {
public:
    MatrixMarketParser(std::string_view text, const std::string& source, const ReadOptions& options)
        : m_begin(text.data()), m_p(text.data()), m_end(text.data() + text.size()), m_source(source),
          m_options(options) {}

    Matrix parse() {
        checkCancel();
        parseBanner();
        parseCommentsAndSize();
        if (m_matrix.layout == Layout::Coordinate) {
            parseCoordinateEntries();
        } else {
            parseArrayEntries();
        }
        parseTrailer();
        if (m_options.progress) {
            m_options.progress(1.0);
        }
        return std::move(m_matrix);
    }

private:
    [[noreturn]] void fail(const std::string& problem) const { throw ParseError(m_source, m_line, problem); }

    void checkCancel() const {
        if (m_options.cancel != nullptr && m_options.cancel->load(std::memory_order_relaxed)) {
            throw CancelledError();
        }
    }

    void checkpoint() {
        checkCancel();
        if (m_options.progress && m_end > m_begin) {
            m_options.progress(static_cast<double>(m_p - m_begin) / static_cast<double>(m_end - m_begin));
        }
    }

    // The current line without its terminator; m_p stays put.
    std::string_view currentLine() const {
        const char* lineEnd = static_cast<const char*>(std::memchr(m_p, '\n', static_cast<std::size_t>(m_end - m_p)));
        if (lineEnd == nullptr) {
            lineEnd = m_end;
        }
        std::string_view line(m_p, static_cast<std::size_t>(lineEnd - m_p));
        while (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
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
        while (m_p < m_end && isBlank(*m_p)) {
            ++m_p;
        }
    }

    bool atLineEnd() const { return m_p == m_end || *m_p == '\n'; }

    std::string_view tokenHere() const {
        const char* q = m_p;
        while (q < m_end && !isBlank(*q) && *q != '\n') {
            ++q;
        }
        return std::string_view(m_p, static_cast<std::size_t>(q - m_p));
    }

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
        if (equalsIgnoringCase(words[2], "coordinate")) {
            m_matrix.layout = Layout::Coordinate;
        } else if (equalsIgnoringCase(words[2], "array")) {
            m_matrix.layout = Layout::Array;
        } else {
            fail("unknown format " + quoted(words[2]) + " in banner (coordinate or array)");
        }
        static const std::pair<const char*, Field> fields[] = {{"real", Field::Real},
                                                               {"double", Field::Double},
                                                               {"integer", Field::Integer},
                                                               {"complex", Field::Complex},
                                                               {"pattern", Field::Pattern}};
        bool fieldKnown = false;
        for (const auto& [name, field] : fields) {
            if (equalsIgnoringCase(words[3], name)) {
                m_matrix.field = field;
                fieldKnown = true;
            }
        }
        if (!fieldKnown) {
            fail("unknown field " + quoted(words[3]) + " in banner (real, double, integer, complex or pattern)");
        }
        static const std::pair<const char*, Symmetry> symmetries[] = {{"general", Symmetry::General},
                                                                      {"symmetric", Symmetry::Symmetric},
                                                                      {"skew-symmetric", Symmetry::SkewSymmetric},
                                                                      {"hermitian", Symmetry::Hermitian}};
        bool symmetryKnown = false;
        for (const auto& [name, symmetry] : symmetries) {
            if (equalsIgnoringCase(words[4], name)) {
                m_matrix.symmetry = symmetry;
                symmetryKnown = true;
            }
        }
        if (!symmetryKnown) {
            fail("unknown symmetry " + quoted(words[4]) +
                 " in banner (general, symmetric, skew-symmetric or hermitian)");
        }
        if (m_matrix.layout == Layout::Array && m_matrix.field == Field::Pattern) {
            fail("a pattern matrix cannot use the array format");
        }
        if (m_matrix.symmetry == Symmetry::Hermitian && m_matrix.field != Field::Complex) {
            fail(std::string("hermitian needs a complex field, not ") + toString(m_matrix.field));
        }
        if (m_matrix.symmetry == Symmetry::SkewSymmetric && m_matrix.field == Field::Pattern) {
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
                m_matrix.comments.emplace_back(currentLine());
                skipLine();
                continue;
            }
            break;
        }
        const Count rows = parseSizeNumber("row count");
        const Count cols = parseSizeNumber("column count");
        Count declared = 0;
        if (m_matrix.layout == Layout::Coordinate) {
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
        if (m_matrix.symmetry != Symmetry::General && rows != cols) {
            fail(std::string(toString(m_matrix.symmetry)) + " matrix must be square, size line says " +
                 std::to_string(rows) + " x " + std::to_string(cols));
        }
        m_matrix.rows = static_cast<Index>(rows);
        m_matrix.cols = static_cast<Index>(cols);
        if (m_matrix.layout == Layout::Array) {
            switch (m_matrix.symmetry) {
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
        m_declared = declared;
        skipLine();

        const Count remaining = static_cast<Count>(m_end - m_p);
        const Count minBytes = m_matrix.layout == Layout::Coordinate ? kMinCoordinateEntryBytes : kMinArrayEntryBytes;
        const auto capacity = static_cast<std::size_t>(std::min(declared, remaining / minBytes + 1));
        m_matrix.rowIndex.reserve(capacity);
        m_matrix.colIndex.reserve(capacity);
        if (m_matrix.field != Field::Pattern) {
            m_matrix.real.reserve(capacity);
        }
        if (m_matrix.field == Field::Complex) {
            m_matrix.imag.reserve(capacity);
        }
    }

    // Moves to the next line holding data, or to the end. Blank and '%' lines in the body are
    // tolerated (several writers emit them).
    void skipToData() {
        for (;;) {
            skipBlanks();
            if (m_p == m_end) {
                return;
            }
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
            if (*m_p != '\n') {
                fail("unexpected text " + quoted(tokenHere()) + " after the entry (one entry per line)");
            }
            ++m_p;
            ++m_line;
        }
        if (++m_linesSinceCheckpoint >= kCheckpointLines) {
            m_linesSinceCheckpoint = 0;
            checkpoint();
        }
    }

    Index parseIndex(const char* what, Index limit) {
        if (atLineEnd()) {
            fail(std::string("missing ") + what + " index");
        }
        const char* start = m_p;
        std::uint64_t value = 0;
        while (m_p < m_end && isDigit(*m_p)) {
            if (value <= static_cast<std::uint64_t>(kMaxDimension)) {
                value = value * 10 + static_cast<std::uint64_t>(*m_p - '0');
            }
            ++m_p;
        }
        if (m_p == start || (m_p < m_end && !isBlank(*m_p) && *m_p != '\n')) {
            m_p = start;
            const std::string_view token = tokenHere();
            if (token[0] == '-') {
                fail(std::string("negative ") + what + " index " + quoted(token));
            }
            fail(quoted(token) + " is not a valid " + what + " index");
        }
        if (value == 0) {
            fail(std::string(what) + " index 0: Matrix Market indices start at 1");
        }
        if (value > static_cast<std::uint64_t>(limit)) {
            fail(std::string(what) + " index " + std::string(start, static_cast<std::size_t>(m_p - start)) +
                 " is outside 1.." + std::to_string(limit));
        }
        skipBlanks();
        return static_cast<Index>(value - 1);
    }

    double parseReal(const char* what) {
        if (atLineEnd()) {
            fail(std::string("missing ") + what);
        }
        double value = 0.0;
        const auto result = std::from_chars(m_p, m_end, value, std::chars_format::general);
        if (result.ec == std::errc() && (result.ptr == m_end || isBlank(*result.ptr) || *result.ptr == '\n')) {
            m_p = result.ptr;
        } else {
            const std::string_view token = tokenHere();
            if (!parseUnusualDouble(token, value)) {
                fail(quoted(token) + " is not a number (" + what + ")");
            }
            m_p += token.size();
        }
        skipBlanks();
        return value;
    }

    double parseInteger() {
        if (atLineEnd()) {
            fail("missing value");
        }
        const std::string_view token = tokenHere();
        std::string_view digits = token;
        if (digits[0] == '+') {
            digits.remove_prefix(1);
        }
        std::int64_t value = 0;
        const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
        if (result.ptr != digits.data() + digits.size() || digits.empty() || digits[0] == '+') {
            fail(quoted(token) + " is not an integer (the field is integer)");
        }
        if (result.ec == std::errc::result_out_of_range) {
            fail("integer " + quoted(token) + " is out of the 64-bit range");
        }
        m_p += token.size();
        skipBlanks();
        return static_cast<double>(value);
    }

    void parseValue() {
        switch (m_matrix.field) {
        case Field::Pattern:
            if (!atLineEnd()) {
                fail("unexpected value " + quoted(tokenHere()) + " in a pattern matrix");
            }
            return;
        case Field::Integer: m_matrix.real.push_back(parseInteger()); return;
        case Field::Real:
        case Field::Double: m_matrix.real.push_back(parseReal("value")); return;
        case Field::Complex:
            m_matrix.real.push_back(parseReal("real part"));
            m_matrix.imag.push_back(parseReal("imaginary part"));
            return;
        }
    }

    void parseCoordinateEntries() {
        const Symmetry symmetry = m_matrix.symmetry;
        for (Count count = 0; count < m_declared; ++count) {
            skipToData();
            if (m_p == m_end) {
                fail("file ends after " + std::to_string(count) + " of " + std::to_string(m_declared) + " entries");
            }
            Index row = parseIndex("row", m_matrix.rows);
            Index col = parseIndex("column", m_matrix.cols);
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
            m_matrix.rowIndex.push_back(row);
            m_matrix.colIndex.push_back(col);
            finishEntryLine();
        }
        checkMirroredEntriesAreUnique();
    }

    // A symmetric file stores the lower triangle; an entry above the diagonal is accepted as its
    // mirror (so the matrix keeps the lower-triangle invariant) unless the mirror is also stored.
    void mirrorUpperEntry(Index row, Index col) {
        if (m_matrix.symmetry == Symmetry::SkewSymmetric && !m_matrix.real.empty()) {
            m_matrix.real.back() = -m_matrix.real.back();
        }
        if (m_matrix.symmetry == Symmetry::Hermitian) {
            m_matrix.imag.back() = -m_matrix.imag.back();
        }
        m_mirrored.push_back({positionKey(col, row), static_cast<Count>(m_matrix.rowIndex.size()), m_line});
    }

    static std::uint64_t positionKey(Index row, Index col) {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(row)) << 32) | static_cast<std::uint32_t>(col);
    }

    void checkMirroredEntriesAreUnique() {
        if (m_mirrored.empty()) {
            return;
        }
        std::vector<MirroredEntry> byKey = m_mirrored;
        std::sort(byKey.begin(), byKey.end(), [](const MirroredEntry& a, const MirroredEntry& b) {
            return a.key != b.key ? a.key < b.key : a.line < b.line;
        });
        std::int64_t collisionLine = std::numeric_limits<std::int64_t>::max();
        std::uint64_t collisionKey = 0;
        auto noteCollision = [&](std::uint64_t key, std::int64_t line) {
            if (line < collisionLine) {
                collisionLine = line;
                collisionKey = key;
            }
        };
        for (std::size_t k = 1; k < byKey.size(); ++k) {
            if (byKey[k].key == byKey[k - 1].key) {
                noteCollision(byKey[k].key, byKey[k].line);
            }
        }
        std::size_t nextMirrored = 0;  // m_mirrored is in entry order
        for (Count e = 0; e < m_matrix.stored(); ++e) {
            if (nextMirrored < m_mirrored.size() && m_mirrored[nextMirrored].entry == e) {
                ++nextMirrored;
                continue;
            }
            const std::uint64_t key = positionKey(m_matrix.rowIndex[e], m_matrix.colIndex[e]);
            auto it = std::lower_bound(byKey.begin(), byKey.end(), key,
                                       [](const MirroredEntry& a, std::uint64_t k) { return a.key < k; });
            if (it != byKey.end() && it->key == key) {
                noteCollision(key, it->line);
            }
        }
        if (collisionLine != std::numeric_limits<std::int64_t>::max()) {
            m_line = collisionLine;
            const std::string lowerPos = "(" + std::to_string((collisionKey >> 32) + 1) + "," +
                                         std::to_string((collisionKey & 0xffffffffu) + 1) + ")";
            const std::string upperPos = "(" + std::to_string((collisionKey & 0xffffffffu) + 1) + "," +
                                         std::to_string((collisionKey >> 32) + 1) + ")";
            fail("entry " + upperPos + " above the diagonal duplicates " + lowerPos + " of the stored lower triangle");
        }
    }

    void parseArrayEntries() {
        const Index rows = m_matrix.rows;
        const Index firstRowOffset = m_matrix.symmetry == Symmetry::General         ? -1
                                     : m_matrix.symmetry == Symmetry::SkewSymmetric ? 1
                                                                                    : 0;
        Index row = 0;
        Index col = 0;
        auto firstRowOf = [&](Index c) { return firstRowOffset < 0 ? 0 : c + firstRowOffset; };
        row = firstRowOf(0);
        for (Count count = 0; count < m_declared; ++count) {
            skipToData();
            if (m_p == m_end) {
                fail("file ends after " + std::to_string(count) + " of " + std::to_string(m_declared) +
                     " array values");
            }
            while (row >= rows) {  // next column (skips the empty last skew column)
                ++col;
                row = firstRowOf(col);
            }
            parseValue();
            m_matrix.rowIndex.push_back(row);
            m_matrix.colIndex.push_back(col);
            ++row;
            finishEntryLine();
        }
    }

    void parseTrailer() {
        skipToData();
        if (m_p != m_end) {
            fail("more entries than the " + std::to_string(m_declared) + " declared in the size line");
        }
    }

    struct MirroredEntry {
        std::uint64_t key;  // position after mirroring
        Count entry;
        std::int64_t line;
    };

    const char* m_begin;
    const char* m_p;
    const char* m_end;
    std::int64_t m_line = 1;
    std::int64_t m_linesSinceCheckpoint = 0;
    Count m_declared = 0;
    const std::string& m_source;
    const ReadOptions& m_options;
    Matrix m_matrix;
    std::vector<MirroredEntry> m_mirrored;
};

} // namespace

Matrix parseMatrixMarket(std::string_view text, const std::string& sourceName, const ReadOptions& options) {
    return MatrixMarketParser(text, sourceName, options).parse();
}

} // namespace spyglass
