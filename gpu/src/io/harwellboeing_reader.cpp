// Harwell-Boeing / Rutherford-Boeing reading (see spyglass/harwellboeing.h). The header:
//   line 1  title (72) and key (8)
//   line 2  card counts: total, pointer, index, value [, right-hand side (Harwell-Boeing only)]
//   line 3  type (3 letters), then rows, columns, entries, elemental entries (I14 each, from column 15)
//   line 4  the Fortran formats of pointers, indices and values
//   line 5  (Harwell-Boeing, when the right-hand side count is positive) right-hand side description
// then the pointers, the row indices and the values, each starting on a new line.
#include "spyglass/error.h"
#include "spyglass/harwellboeing.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <vector>

namespace spyglass {

namespace {

struct Lines {
    std::string_view text;
    std::size_t at = 0;
    long line = 0;
    std::string where;

    bool done() const { return at >= text.size(); }
    std::string_view next() {
        if (done()) throw InputError(where + ": line " + std::to_string(line + 1) + ": the file ends early");
        const std::size_t end = text.find('\n', at);
        std::string_view l = text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
        at = end == std::string_view::npos ? text.size() : end + 1;
        ++line;
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        return l;
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw InputError(where + ": line " + std::to_string(line) + ": " + what);
    }
};

std::string trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return std::string(s);
}

// A whole-number field of a fixed-width header line ("" when the line is shorter).
long long headerNumber(const Lines& in, std::string_view line, std::size_t from, std::size_t width, const char* what, bool required) {
    const std::string field = from < line.size() ? trim(line.substr(from, width)) : std::string();
    if (field.empty()) {
        if (required) in.fail(std::string("no ") + what);
        return 0;
    }
    long long v = 0;
    const auto r = std::from_chars(field.data(), field.data() + field.size(), v);
    if (r.ec != std::errc() || r.ptr != field.data() + field.size() || v < 0) in.fail(std::string(what) + " '" + field + "' is not a count");
    return v;
}

// One Fortran edit descriptor: (16I5), (3E25.16), (1P,4D20.12), (5F15.8) ...
struct FortranFormat {
    int perLine = 1, width = 1;
    char kind = 'I';
};

FortranFormat parseFormat(const Lines& in, std::string_view text, const char* what) {
    std::string s;
    for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c))) s.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    if (s.size() < 3 || s.front() != '(' || s.back() != ')') in.fail(std::string(what) + " format '" + std::string(text) + "' is not (nXw)");
    s = s.substr(1, s.size() - 2);
    // A scale factor ("1P," or "1P") changes nothing for reading.
    const auto p = s.find('P');
    if (p != std::string::npos) s = s.substr(p + 1 < s.size() && s[p + 1] == ',' ? p + 2 : p + 1);
    FortranFormat f;
    std::size_t i = 0;
    int count = 0;
    // Digits beyond 5 are refused below anyway; stop counting before an int could overflow.
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) count = std::min(count * 10 + (s[i++] - '0'), 100000);
    if (i >= s.size()) in.fail(std::string(what) + " format has no edit descriptor");
    f.kind = s[i++];
    int width = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) width = std::min(width * 10 + (s[i++] - '0'), 100000);
    if (std::string("IEDFG").find(f.kind) == std::string::npos || width < 1 || width > 100 || count > 1000)
        in.fail(std::string(what) + " format '" + std::string(text) + "' is not one Spyglass reads (nIw, nEw.d, nDw.d, nFw.d, nGw.d)");
    f.perLine = count > 0 ? count : 1;
    f.width = width;
    return f;
}

// Reads `count` fields, lines of at most f.perLine fields each (a line may hold fewer). Integers are
// cut at their fixed width (I formats often run numbers together: (26I3)); reals are split at blanks,
// since writers do not all keep to the width they declare (SciPy's hb_write writes 24-character
// fields under (3E25.16)), and an E or D field always has a blank or a sign before its digits.
template <typename Convert>
void readFields(Lines& in, const FortranFormat& f, std::uint64_t count, const char* what, Convert convert) {
    const bool integers = f.kind == 'I';
    std::uint64_t got = 0;
    while (got < count) {
        const std::string_view line = in.next();
        if (!integers) {
            std::size_t at = 0;
            int onLine = 0;
            while (got < count) {
                while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at]))) ++at;
                if (at >= line.size()) break;
                std::size_t end = at;
                while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) ++end;
                if (++onLine > f.perLine) in.fail(std::string("more ") + what + "s on the line than its format allows");
                convert(std::string(line.substr(at, end - at)), got);
                ++got;
                at = end;
            }
            continue;
        }
        for (int k = 0; k < f.perLine && got < count; ++k) {
            const std::size_t from = std::size_t(k) * std::size_t(f.width);
            if (from >= line.size()) break;
            const std::string field = trim(line.substr(from, std::size_t(f.width)));
            if (field.empty()) {
                if (from + std::size_t(f.width) >= line.size()) break;  // trailing blanks
                in.fail(std::string("an empty ") + what + " field");
            }
            convert(field, got);
            ++got;
        }
    }
}

long long integerField(const Lines& in, const std::string& field, const char* what) {
    long long v = 0;
    const auto r = std::from_chars(field.data(), field.data() + field.size(), v);
    if (r.ec != std::errc() || r.ptr != field.data() + field.size()) in.fail(std::string(what) + " '" + field + "' is not an integer");
    return v;
}

double realField(const Lines& in, const std::string& field, const char* what) {
    // Fortran: D exponents, and E formats that drop the letter for three-digit exponents (1.0-100).
    std::string s;
    for (std::size_t i = 0; i < field.size(); ++i) {
        char c = field[i];
        if (c == 'D' || c == 'd' || c == 'Q' || c == 'q') c = 'E';
        if ((c == '+' || c == '-') && i > 0 && std::isdigit(static_cast<unsigned char>(field[i - 1])) &&
            s.find_first_of("Ee") == std::string::npos)
            s.push_back('E');
        s.push_back(c);
    }
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || s.empty()) in.fail(std::string(what) + " '" + field + "' is not a number");
    return v;
}

} // namespace

bool looksLikeHarwellBoeing(std::string_view head) {
    std::size_t at = 0;
    std::string_view lines[4];
    for (auto& l : lines) {
        const std::size_t end = head.find('\n', at);
        if (end == std::string_view::npos) return false;
        l = head.substr(at, end - at);
        at = end + 1;
    }
    if (lines[2].size() < 3 || lines[3].empty()) return false;
    const char a = char(std::toupper(static_cast<unsigned char>(lines[2][0]))), b = char(std::toupper(static_cast<unsigned char>(lines[2][1]))),
               c = char(std::toupper(static_cast<unsigned char>(lines[2][2])));
    return std::string("RCPIQ").find(a) != std::string::npos && std::string("SUHZR").find(b) != std::string::npos &&
           (c == 'A' || c == 'E') && trim(lines[3]).rfind('(', 0) == 0;
}

Matrix parseHarwellBoeing(std::string_view text, const std::string& where, Count maxEntries) {
    Lines in{text, 0, 0, where};
    in.next();  // title and key
    const std::string_view cards = in.next();
    const long long rhsCards = headerNumber(in, cards, 56, 14, "right-hand side card count", false);
    const std::string_view typeLine = in.next();
    if (typeLine.size() < 3) in.fail("no matrix type");
    const char valueType = char(std::toupper(static_cast<unsigned char>(typeLine[0])));
    const char structure = char(std::toupper(static_cast<unsigned char>(typeLine[1])));
    const char assembly = char(std::toupper(static_cast<unsigned char>(typeLine[2])));
    if (std::string("RCPIQ").find(valueType) == std::string::npos || std::string("SUHZR").find(structure) == std::string::npos)
        in.fail("type '" + std::string(typeLine.substr(0, 3)) + "' is not a Harwell-Boeing matrix type");
    if (assembly != 'A') in.fail("elemental matrices (type " + std::string(typeLine.substr(0, 3)) + ") are not read: assemble them first");
    const long long rows = headerNumber(in, typeLine, 14, 14, "row count", true);
    const long long cols = headerNumber(in, typeLine, 28, 14, "column count", true);
    const long long entries = headerNumber(in, typeLine, 42, 14, "entry count", true);
    constexpr long long kMaxIndex = std::numeric_limits<Index>::max();
    if (rows > kMaxIndex || cols > kMaxIndex) in.fail("the size " + std::to_string(rows) + " x " + std::to_string(cols) + " does not fit 32-bit indices");
    if (maxEntries > 0 && entries > maxEntries)
        in.fail(std::to_string(entries) + " entries are more than the limit of " + std::to_string(maxEntries));
    // Every pointer and index takes at least one character: counts the text cannot hold are refused
    // before anything is sized by them.
    // (A value takes one more, a complex one two): the arrays are then at most 8 bytes per byte of text.
    const long long fieldsPerEntry = valueType == 'P' || valueType == 'Q' ? 1 : valueType == 'C' ? 3 : 2;
    const long long bytes = (long long)(text.size());
    if (entries > bytes / fieldsPerEntry)
        in.fail(std::to_string(entries) + " entries need at least " + std::to_string(fieldsPerEntry) + " fields each, more than a file of " +
                std::to_string(text.size()) + " bytes can hold");
    if (cols + 1 > bytes - entries * fieldsPerEntry)
        in.fail(std::to_string(cols + 1) + " column pointers cannot fit a file of " + std::to_string(text.size()) + " bytes beside " +
                std::to_string(entries) + " entries");
    const std::string_view formatLine = in.next();
    std::vector<std::string_view> formats;
    for (std::size_t i = 0; i < formatLine.size();) {
        const std::size_t open = formatLine.find('(', i);
        if (open == std::string_view::npos) break;
        const std::size_t close = formatLine.find(')', open);
        if (close == std::string_view::npos) in.fail("a format is not closed");
        formats.push_back(formatLine.substr(open, close - open + 1));
        i = close + 1;
    }
    const bool hasValues = valueType != 'P' && valueType != 'Q';
    if (formats.size() < (hasValues ? 3u : 2u)) in.fail("expected the pointer, index" + std::string(hasValues ? " and value" : "") + " formats");
    const FortranFormat pointerFormat = parseFormat(in, formats[0], "pointer");
    const FortranFormat indexFormat = parseFormat(in, formats[1], "index");
    const FortranFormat valueFormat = hasValues ? parseFormat(in, formats[2], "value") : FortranFormat{};
    if (rhsCards > 0) in.next();  // the right-hand side description; the right-hand sides themselves are not read

    Matrix m;
    m.rows = static_cast<Index>(rows);
    m.cols = static_cast<Index>(cols);
    m.field = valueType == 'C' ? Field::Complex : valueType == 'I' ? Field::Integer : hasValues ? Field::Real : Field::Pattern;
    m.symmetry = structure == 'S' ? Symmetry::Symmetric : structure == 'H' ? Symmetry::Hermitian
               : structure == 'Z' ? Symmetry::SkewSymmetric : Symmetry::General;
    std::vector<long long> pointers(static_cast<std::size_t>(cols) + 1);
    readFields(in, pointerFormat, pointers.size(), "pointer",
               [&](const std::string& f, std::uint64_t k) { pointers[k] = integerField(in, f, "pointer"); });
    if (pointers[0] != 1) in.fail("the first column pointer is " + std::to_string(pointers[0]) + ", not 1");
    for (std::size_t j = 0; j + 1 < pointers.size(); ++j)
        if (pointers[j + 1] < pointers[j]) in.fail("column pointer " + std::to_string(j + 2) + " decreases");
    if (pointers.back() - 1 != entries)
        in.fail("the column pointers end at " + std::to_string(pointers.back() - 1) + " entries, the header says " + std::to_string(entries));
    m.rowIndex.resize(static_cast<std::size_t>(entries));
    m.colIndex.resize(static_cast<std::size_t>(entries));
    readFields(in, indexFormat, std::uint64_t(entries), "row index", [&](const std::string& f, std::uint64_t k) {
        const long long r = integerField(in, f, "row index");
        if (r < 1 || r > rows) in.fail("row index " + std::to_string(r) + " is outside 1.." + std::to_string(rows));
        m.rowIndex[k] = static_cast<Index>(r - 1);
    });
    for (Index j = 0; j < m.cols; ++j)
        for (long long k = pointers[j] - 1; k < pointers[j + 1] - 1; ++k) {
            m.colIndex[std::size_t(k)] = j;
            const Index r = m.rowIndex[std::size_t(k)];
            // Symmetric kinds store their lower triangle (a skew-symmetric matrix has no diagonal).
            if ((m.symmetry != Symmetry::General && r < j) || (m.symmetry == Symmetry::SkewSymmetric && r == j))
                throw InputError(where + ": entry (" + std::to_string(r + 1) + ", " + std::to_string(j + 1) + ") lies outside the " +
                                 (m.symmetry == Symmetry::SkewSymmetric ? "strict " : "") + "lower triangle a " +
                                 std::string(toString(m.symmetry)) + " matrix stores");
        }
    if (hasValues) {
        const bool complex = m.field == Field::Complex;
        m.real.resize(static_cast<std::size_t>(entries));
        if (complex) m.imag.resize(static_cast<std::size_t>(entries));
        readFields(in, valueFormat, std::uint64_t(entries) * (complex ? 2 : 1), "value", [&](const std::string& f, std::uint64_t k) {
            const double v = realField(in, f, "value");
            if (complex) (k % 2 ? m.imag : m.real)[k / 2] = v;
            else m.real[k] = v;
        });
        if (m.field == Field::Integer)
            for (double v : m.real)
                if (v != std::floor(v)) in.fail("an integer matrix holds " + std::to_string(v));
    }
    return m;
}

} // namespace spyglass
