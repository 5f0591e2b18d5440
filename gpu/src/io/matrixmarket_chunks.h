#pragma once
// Internal pieces of the parallel Matrix Market reader. The header (banner, comments, size line) is
// parsed once, serially; the body is cut at line boundaries into chunks that are parsed independently
// (each with line numbers counted from 0 inside the chunk) and then joined in file order, where the
// chunk's first line is known and local line numbers become file lines.
#include "spyglass/matrix.h"
#include "spyglass/matrixmarket.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace spyglass::mm {

// What the header says, and where the body starts.
struct Header {
    Matrix shell;                // layout, field, symmetry, size and comments; no entries
    Count declared = 0;          // entries the body must hold (coordinate: the size line; array: implied)
    std::size_t bodyOffset = 0;  // byte offset of the first body line in the text
    std::int64_t bodyLine = 1;   // its 1-based line number
};

// Parses banner, comments and size line of text (which must hold at least the whole size line).
// Throws ParseError as the whole-file parser would.
Header parseHeader(std::string_view text, const std::string& source, const ReadOptions& options);

// Where the body starts when text holds the whole header; npos while the size line (with its
// newline) has not arrived yet. Used to know how much of a stream the header needs.
std::size_t bodyOffsetIfComplete(std::string_view text);

// An upper-triangle entry of a symmetric kind that was stored as its lower mirror; joined globally
// to refuse a mirror that duplicates a stored lower entry.
struct MirroredEntry {
    std::uint64_t key;   // position after mirroring: row << 32 | col
    Count entry;         // entry number (local to the chunk until joined)
    std::int64_t line;   // line (local to the chunk until joined)
};

// One chunk's result. For array layout rowIndex/colIndex stay empty: positions follow from the
// global entry number and are filled in when the chunk is joined.
struct ChunkResult {
    std::vector<Index> rowIndex, colIndex;
    std::vector<double> real, imag;
    std::vector<MirroredEntry> mirrored;
    Count entries = 0;
    std::int64_t newlines = 0;  // complete only when !failed
    bool failed = false;        // a parse error at local line errorLine, in data line errorEntry
    std::int64_t errorLine = 0;
    Count errorEntry = 0;
    std::string problem;
};

// Parses the whole lines of text (a chunk) as body lines of a matrix shaped like shell. Never throws
// ParseError (it is recorded in the result); throws CancelledError when options.cancel is set.
// onProgress (may be empty) is called now and then with the bytes consumed since the last call.
ChunkResult parseChunk(std::string_view text, const Matrix& shell, const ReadOptions& options,
                       const std::function<void(std::size_t bytes)>& onProgress);

// The local line (0-based newline count before it) of data line number dataLine (0-based) of text:
// the line a "more entries than declared" error names. -1 when text has fewer data lines.
std::int64_t lineOfDataLine(std::string_view text, Count dataLine);

// Array layout lists the values column by column (only the stored triangle for symmetric kinds): the
// positions of values first .. first + count - 1 follow from the shape alone (value k's to
// rowOut[k - first] and colOut[k - first]).
void fillArrayPositions(const Matrix& m, Index* rowOut, Index* colOut, Count first, Count count);

// An entry above the diagonal is accepted as its mirror unless the mirror is also stored; the first
// such clash in file order is the error (ParseError). mirrored: in entry order, entry numbers of
// matrix's entries, file lines.
void checkMirroredEntriesAreUnique(const Matrix& matrix, const std::vector<MirroredEntry>& mirrored,
                                   const std::string& source);

// Whole lines of the body, in file order. The text stays valid while the Chunk is alive.
struct Chunk {
    std::string_view text;
    std::shared_ptr<const std::string> owner;  // the bytes, when not a view of a mapping
};

// Where the body's chunks come from: a mapping or a string cut up front, or a decompressing thread.
struct BodySource {
    // Returns false when no chunk is left. May block (a decompressing thread) and may throw (its
    // error wins over parse errors, as the bytes it could not produce come first in the file).
    std::function<bool(Chunk& chunk)> next;
    // The fraction of the whole input done once parsedBodyBytes of the body are parsed (progress).
    std::function<double(std::size_t parsedBodyBytes)> fraction;
    // An upper bound on the entries the body can hold (from its byte count), or -1 when unknown
    // (a stream): then the matrix grows as chunks arrive instead of being sized up front.
    Count entryBound = -1;
    // Without a bound: entries to reserve up front (at most the declared count).
    Count reserveHint = 0;
    // Called (when set) with a chunk's text once it is parsed: a mapping drops those pages from the
    // process (they stay in the page cache and fault back in if an error message needs them).
    std::function<void(std::string_view text)> parsed;
};

// Parses the body chunks on readerThreads(options) threads, joins them in file order and returns the
// complete matrix; errors are resolved in file order (the first one the serial parser would meet).
// Progress and cancel are looked at on the calling thread, which only waits and reports.
Matrix parseBody(Header header, BodySource& source, const std::string& sourceName, const ReadOptions& options);

// Threads to use: options.threads, or every hardware thread when 0.
unsigned readerThreads(const ReadOptions& options);
// Target chunk size for a body of bodyBytes (unknown: 0).
std::size_t chunkBytesFor(const ReadOptions& options, std::size_t bodyBytes, unsigned threads);

// Parses text in memory (header and body); fraction maps bytes of text done to the progress fraction.
Matrix parseText(std::string_view text, const std::string& sourceName, const ReadOptions& options,
                 const std::function<double(std::size_t textBytesDone)>& fraction,
                 const std::function<void(std::string_view)>& parsed = {});

// Reads a gzip file through a decompressing thread that feeds the parsers whole-line chunks, so the
// decompressed text is never held whole. fileSize (compressed) for progress.
Matrix readGzipStream(const std::string& path, long long fileSize, const ReadOptions& options);

// A gzip error at the line where the usable text ends (1 + newlines before it), so the user sees how
// far the file got. truncated: the data stops early (Z_BUF_ERROR) rather than being damaged.
[[noreturn]] void failGzip(const std::string& path, std::int64_t newlinesBefore, bool truncated, const char* detail);

// Cuts an in-memory body into whole-line chunks of about chunkBytes each.
std::vector<std::string_view> splitAtLines(std::string_view body, std::size_t chunkBytes);

} // namespace spyglass::mm
