#pragma once
// Matrix Market reader and writer (https://math.nist.gov/MatrixMarket/formats.html), whole format:
// coordinate and array; real, double, integer, complex, pattern; general, symmetric,
// skew-symmetric, hermitian. Reads plain files and .gz. Every malformed input throws ParseError
// naming the problem and the 1-based line; a partial matrix is never returned.
// The body is parsed on several threads (chunks cut at line boundaries, joined in file order); the
// result and every error, line included, are the same whatever the thread count and chunk size.
#include "spyglass/matrix.h"

#include <atomic>
#include <functional>
#include <string>
#include <string_view>

namespace spyglass {

struct ReadOptions {
    // Called now and then with the fraction of the input consumed (0..1), never decreasing. Called
    // from the parsing threads, one call at a time; once a call sets cancel, no further call comes.
    std::function<void(double fraction)> progress;
    // When set and true, reading stops with CancelledError.
    const std::atomic<bool>* cancel = nullptr;
    // Declared sizes beyond this many stored entries are refused before allocating (a header may
    // claim 10^12 entries); the default is generous for a workstation.
    Count maxEntries = Count(2) * 1000 * 1000 * 1000;
    // Parsing threads; 0 = every hardware thread. 1 parses on one thread (a gzip file still has its
    // decompressing thread beside it).
    unsigned threads = 0;
    // Body chunk size in bytes; 0 = chosen from the size and thread count (a few MB). Tests set it
    // tiny so that chunk edges fall inside comments, blank lines and entries.
    std::size_t chunkBytes = 0;
};

// Reads a file; a name ending in .gz is decompressed on the fly.
Matrix readMatrixMarket(const std::string& path, const ReadOptions& options = {});
// Parses text already in memory; sourceName appears in error messages.
Matrix parseMatrixMarket(std::string_view text, const std::string& sourceName = "<memory>",
                         const ReadOptions& options = {});

struct WriteOptions {
    // Write the full matrix as general (mirrored entries written out) instead of the stored triangle.
    bool expandSymmetry = false;
};

// Writes atomically (temporary file in the same folder, then rename): the target is either the old
// file or the complete new one. Values are written with full round-trip precision.
void writeMatrixMarket(const std::string& path, const Matrix& matrix, const WriteOptions& options = {});
std::string formatMatrixMarket(const Matrix& matrix, const WriteOptions& options = {});

} // namespace spyglass
