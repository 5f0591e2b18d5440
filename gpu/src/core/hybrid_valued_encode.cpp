// Valued hybrid encoding (method D on any real matrix): regions store their values densely, the rest
// stays CSR with values. Encode, decode, validate, byte counts. The encoding counts, then fills, row
// chunks on every thread at offsets from prefix sums (as the binary encoding does).
#include "core/hybrid_gallop.h"
#include "core/hybrid_residualcount.h"
#include "core/hybrid_rowcover.h"
#include "core/hybrid_threads.h"
#include "spyglass/error.h"
#include "spyglass/hybrid_valued.h"

#include <algorithm>

namespace spyglass {

namespace {

// Fixed bytes of the encoding (dimensions, counts) and of one region record, as the container
// stores them (docs/container-format.md).
constexpr std::size_t kHeaderBytes = 16;
constexpr std::size_t kRegionRecordBytes = 32;

template <typename T>
std::size_t blockBytes(const DenseRegion& region) {
    return kRegionRecordBytes + sizeof(T) * static_cast<std::size_t>(region.cells());
}

using hybrid_detail::coverRows;
using hybrid_detail::RowCover;

template <typename T>
void validateCsrInput(const CsrMatrix<T>& m, const char* what, std::size_t threads = 1) {
    if (m.rows < 0 || m.cols < 0) throw InputError(std::string(what) + ": negative dimensions");
    if (m.rowPtr.size() != static_cast<std::size_t>(m.rows) + 1 || m.rowPtr.front() != 0 ||
        m.rowPtr.back() != static_cast<Count>(m.colIndex.size()) || m.colIndex.size() != m.values.size())
        throw InputError(std::string(what) + ": row pointers, columns and values do not agree");
    // All pointers first: a later row's pointer past the end must not be read through by an earlier row.
    for (Index row = 0; row < m.rows; ++row)
        if (m.rowPtr[row] > m.rowPtr[row + 1])
            throw InputError(std::string(what) + ": row pointers decrease at row " + std::to_string(row));
    // Row chunks on the threads; the first bad row (in row order) is the one named, as on one thread.
    const std::vector<std::size_t> chunks = hybrid_detail::rowChunks(m.rowPtr, static_cast<std::size_t>(m.rows), threads);
    hybrid_detail::forEachItem(chunks.size() - 1, threads, [&](std::size_t chunk) {
        for (Index row = static_cast<Index>(chunks[chunk]); row < static_cast<Index>(chunks[chunk + 1]); ++row) {
            const Count begin = m.rowPtr[row], end = m.rowPtr[row + 1];
            for (Count k = begin; k < end; ++k) {
                const Index j = m.colIndex[k];
                if (j < 0 || j >= m.cols || (k > begin && j <= m.colIndex[k - 1]))
                    throw InputError(std::string(what) + ": column " + std::to_string(j) + " in row " + std::to_string(row) +
                                     " is out of range, repeated or out of order");
            }
        }
    });
}

} // namespace

std::size_t valuedCsrBytes(Index rows, Count nnz, std::size_t valueBytes) {
    return 8 * (static_cast<std::size_t>(rows) + 1) + (4 + valueBytes) * static_cast<std::size_t>(nnz);
}

std::vector<Count> regionCellStarts(const DenseRegion& region) {
    std::vector<Count> starts(static_cast<std::size_t>(std::max<Index>(0, region.height())) + 1, 0);
    for (Index local = 0; local < region.height(); ++local)
        starts[local + 1] = starts[local] + region.span(region.rowBegin + local).size();
    return starts;
}

template <typename T>
Count HybridValuedMatrix<T>::nnz() const {
    Count total = residual.nnz();
    for (const HybridValuedBlock<T>& block : blocks) total += block.region.ones;
    return total;
}

template <typename T>
Count HybridValuedMatrix<T>::explicitZeros() const {
    Count total = 0;
    for (const HybridValuedBlock<T>& block : blocks) total += block.explicitZeros();
    return total;
}

template <typename T>
std::size_t HybridValuedMatrix<T>::encodedBytes() const {
    std::size_t bytes = kHeaderBytes + valuedCsrBytes(residual.rows, residual.nnz(), sizeof(T));
    for (const HybridValuedBlock<T>& block : blocks) bytes += kRegionRecordBytes + sizeof(T) * block.values.size();
    return bytes;
}

template <typename T>
BinaryPattern patternOfCsr(const CsrMatrix<T>& matrix) {
    return {matrix.rows, matrix.cols, matrix.rowPtr, matrix.colIndex};
}

template <typename T>
HybridValuedMatrix<T> encodeHybridValued(const CsrMatrix<T>& matrix, const std::vector<DenseRegion>& regions,
                                         const HybridValuedOptions& options) {
    const std::size_t threads = hybrid_detail::threadCount(options.threads);
    validateCsrInput(matrix, "valued hybrid encoding", threads);
    for (std::size_t a = 0; a < regions.size(); ++a) {
        validateRegion(regions[a], matrix.rows, matrix.cols);
        for (std::size_t b = 0; b < a; ++b)
            if (regionsOverlap(regions[a], regions[b]))
                throw InputError("valued hybrid encoding: regions " + std::to_string(b) + " (" + regions[b].describe() +
                                 ") and " + std::to_string(a) + " (" + regions[a].describe() + ") overlap");
    }
    // Non-zero entries inside each region (explicit zeros there are dropped): decides which regions pay.
    std::vector<DenseRegion> counted = regions;
    hybrid_detail::forEachItem(counted.size(), threads, [&](std::size_t b) {
        DenseRegion& r = counted[b];
        r.ones = 0;
        for (Index row = r.rowBegin; row < r.rowEnd; ++row) {
            const ColumnSpan s = r.span(row);
            if (!s.size()) continue;
            const auto first = matrix.colIndex.begin() + matrix.rowPtr[row], last = matrix.colIndex.begin() + matrix.rowPtr[row + 1];
            for (auto it = std::lower_bound(first, last, s.begin); it != last && *it < s.end; ++it)
                if (matrix.values[it - matrix.colIndex.begin()] != T(0)) ++r.ones;
        }
    });
    std::vector<DenseRegion> kept;
    for (const DenseRegion& r : counted)
        if (options.forceRegions || blockBytes<T>(r) < (4 + sizeof(T)) * static_cast<std::size_t>(r.ones)) kept.push_back(r);

    HybridValuedMatrix<T> hybrid;
    hybrid.rows = matrix.rows;
    hybrid.cols = matrix.cols;
    const RowCover cover = coverRows(matrix.rows, kept);
    std::vector<std::vector<Count>> starts(kept.size());
    hybrid.blocks.resize(kept.size());
    // Count each row's residual entries (binary searches per span), then prefix sums by chunk.
    const hybrid_detail::ResidualCount rest = hybrid_detail::countResidualRows(
        hybrid.residual, matrix, cover, kept, threads, options.cancel, [](Index, std::int32_t, const ColumnSpan&, Count) {});
    CsrMatrix<T>& residual = hybrid.residual;
    const std::vector<std::size_t>& chunks = rest.chunks;
    const std::size_t chunkCount = rest.chunkCount();
    const Index* columns = matrix.colIndex.data();
    const Count residualNnz = rest.entries();

    // The size is known before anything is copied: fall back without filling when it does not pay.
    const std::size_t csrBytes = valuedCsrBytes(matrix.rows, matrix.nnz(), sizeof(T));
    std::size_t bytes = kHeaderBytes + valuedCsrBytes(matrix.rows, residualNnz, sizeof(T));
    for (const DenseRegion& r : kept) bytes += blockBytes<T>(r);
    if (kept.empty() || (!options.forceRegions && bytes >= csrBytes)) {
        hybrid.blocks.clear();
        hybrid.residual = matrix;
        hybrid.csrFallback = true;
        hybrid.fallbackReason = kept.empty() ? (regions.empty() ? "no dense region found"
                                                                : "no dense region is cheaper to store densely than as CSR")
                                             : "hybrid encoding (" + std::to_string(bytes) + " bytes) is not smaller than CSR (" +
                                                   std::to_string(csrBytes) + " bytes)";
        return hybrid;
    }

    // Allocate (each array zero-filled on its own thread), then fill every chunk at its offsets.
    hybrid_detail::forEachItem(kept.size() + 2, threads, [&](std::size_t item) {
        if (item == 0) residual.colIndex.resize(static_cast<std::size_t>(residualNnz));
        else if (item == 1) residual.values.resize(static_cast<std::size_t>(residualNnz));
        else {
            const std::size_t b = item - 2;
            hybrid.blocks[b].region = kept[b];
            starts[b] = regionCellStarts(kept[b]);
            hybrid.blocks[b].values.assign(static_cast<std::size_t>(starts[b].back()), T(0));
        }
    });
    hybrid_detail::forEachItem(chunkCount, threads, [&](std::size_t chunk) {
        hybrid_detail::pollCancel(options.cancel);
        std::vector<std::pair<ColumnSpan, std::int32_t>> spans;
        for (Index row = static_cast<Index>(chunks[chunk]); row < static_cast<Index>(chunks[chunk + 1]); ++row) {
            Count k = matrix.rowPtr[row];
            const Count last = matrix.rowPtr[row + 1];
            Count out = residual.rowPtr[row];
            // Runs outside the spans are copied whole (columns and values side by side).
            auto keepUpTo = [&](Count end) {
                std::copy(matrix.colIndex.begin() + k, matrix.colIndex.begin() + end, residual.colIndex.begin() + out);
                std::copy(matrix.values.begin() + k, matrix.values.begin() + end, residual.values.begin() + out);
                out += end - k;
                k = end;
            };
            if (cover.ptr[row] != cover.ptr[row + 1]) {
                hybrid_detail::rowSpans(cover, kept, row, spans);
                for (const auto& [s, b] : spans) {
                    keepUpTo(hybrid_detail::lowerBoundFromFront(columns + k, columns + last, s.begin) - columns);
                    T* cells = hybrid.blocks[b].values.data() + starts[b][row - kept[b].rowBegin] - s.begin;
                    for (; k != last && matrix.colIndex[k] < s.end; ++k) cells[matrix.colIndex[k]] = matrix.values[k];
                }
            }
            keepUpTo(last);
        }
    });
    return hybrid;
}

template <typename T>
CsrMatrix<T> decodeHybridValued(const HybridValuedMatrix<T>& hybrid) {
    std::vector<DenseRegion> regions;
    std::vector<std::vector<Count>> starts;
    for (const HybridValuedBlock<T>& block : hybrid.blocks) {
        regions.push_back(block.region);
        starts.push_back(regionCellStarts(block.region));
    }
    const RowCover cover = coverRows(hybrid.rows, regions);
    CsrMatrix<T> out;
    out.rows = hybrid.rows;
    out.cols = hybrid.cols;
    out.rowPtr.assign(static_cast<std::size_t>(hybrid.rows) + 1, 0);
    out.colIndex.reserve(static_cast<std::size_t>(std::max<Count>(0, hybrid.nnz())));
    out.values.reserve(out.colIndex.capacity());
    std::vector<std::pair<Index, T>> row;
    for (Index i = 0; i < hybrid.rows; ++i) {
        row.clear();
        for (Count k = hybrid.residual.rowPtr[i]; k < hybrid.residual.rowPtr[i + 1]; ++k)
            row.push_back({hybrid.residual.colIndex[k], hybrid.residual.values[k]});
        for (Count c = cover.ptr[i]; c < cover.ptr[i + 1]; ++c) {
            const std::int32_t b = cover.region[c];
            const ColumnSpan s = regions[b].span(i);
            const T* cells = hybrid.blocks[b].values.data() + starts[b][i - regions[b].rowBegin];
            for (Index j = s.begin; j < s.end; ++j)
                if (cells[j - s.begin] != T(0)) row.push_back({j, cells[j - s.begin]});
        }
        std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [j, v] : row) {
            out.colIndex.push_back(j);
            out.values.push_back(v);
        }
        out.rowPtr[i + 1] = static_cast<Count>(out.colIndex.size());
    }
    return out;
}

template <typename T>
void validateHybridValued(const HybridValuedMatrix<T>& hybrid) {
    if (hybrid.rows < 0 || hybrid.cols < 0) throw InputError("valued hybrid matrix: negative dimensions");
    const CsrMatrix<T>& residual = hybrid.residual;
    if (residual.rows != hybrid.rows || residual.cols != hybrid.cols)
        throw InputError("valued hybrid matrix: residual is " + std::to_string(residual.rows) + " x " +
                         std::to_string(residual.cols) + ", matrix is " + std::to_string(hybrid.rows) + " x " +
                         std::to_string(hybrid.cols));
    // On every core: reopening a CSR-fallback export checks its whole residual here (the first bad
    // row is still the one named).
    const std::size_t threads = hybrid_detail::threadCount(0);
    validateCsrInput(residual, "valued hybrid matrix: residual", threads);
    std::vector<DenseRegion> regions;
    for (std::size_t b = 0; b < hybrid.blocks.size(); ++b) {
        const HybridValuedBlock<T>& block = hybrid.blocks[b];
        const std::string where = "valued hybrid matrix: block " + std::to_string(b) + ": ";
        validateRegion(block.region, hybrid.rows, hybrid.cols);
        for (std::size_t a = 0; a < regions.size(); ++a)
            if (regionsOverlap(regions[a], block.region)) throw InputError(where + "overlaps block " + std::to_string(a));
        regions.push_back(block.region);
        const Count cells = block.region.cells();
        if (block.values.size() != static_cast<std::size_t>(cells))
            throw InputError(where + "holds " + std::to_string(block.values.size()) + " values for " + std::to_string(cells) +
                             " cells");
        const Count nonZero = static_cast<Count>(
            std::count_if(block.values.begin(), block.values.end(), [](const T& v) { return v != T(0); }));
        if (nonZero != block.region.ones)
            throw InputError(where + "counts " + std::to_string(block.region.ones) + " non-zero cells, its values hold " +
                             std::to_string(nonZero));
    }
    if (regions.empty()) return;  // no entry can lie in a block (a CSR fallback: the whole matrix is residual)
    const RowCover cover = coverRows(hybrid.rows, regions);
    // Row chunks on the threads; the first chunk's error is rethrown, so the entry named is the first in
    // row order, as on one thread.
    const std::vector<std::size_t> chunks = hybrid_detail::rowChunks(residual.rowPtr, static_cast<std::size_t>(hybrid.rows), threads);
    hybrid_detail::forEachItem(chunks.size() - 1, threads, [&](std::size_t chunk) {
        for (Index row = static_cast<Index>(chunks[chunk]); row < static_cast<Index>(chunks[chunk + 1]); ++row)
            for (Count k = residual.rowPtr[row]; k < residual.rowPtr[row + 1]; ++k) {
                const Index j = residual.colIndex[k];
                if (const std::int32_t b = hybrid_detail::regionHolding(cover, regions, row, j); b >= 0)
                    throw InputError("valued hybrid matrix: residual entry (" + std::to_string(row) + ", " + std::to_string(j) +
                                     ") lies inside block " + std::to_string(b));
            }
    });
}

template struct HybridValuedMatrix<float>;
template struct HybridValuedMatrix<double>;
template BinaryPattern patternOfCsr(const CsrMatrix<float>&);
template BinaryPattern patternOfCsr(const CsrMatrix<double>&);
template HybridValuedMatrix<float> encodeHybridValued(const CsrMatrix<float>&, const std::vector<DenseRegion>&,
                                                      const HybridValuedOptions&);
template HybridValuedMatrix<double> encodeHybridValued(const CsrMatrix<double>&, const std::vector<DenseRegion>&,
                                                       const HybridValuedOptions&);
template CsrMatrix<float> decodeHybridValued(const HybridValuedMatrix<float>&);
template CsrMatrix<double> decodeHybridValued(const HybridValuedMatrix<double>&);
template void validateHybridValued(const HybridValuedMatrix<float>&);
template void validateHybridValued(const HybridValuedMatrix<double>&);
// Complex values (c64, c128): the regions hold complex cells; the CPU backend multiplies them.
#define SPYGLASS_HYBRID_VALUED_COMPLEX(T)                                                                        \
    template struct HybridValuedMatrix<T>;                                                                       \
    template BinaryPattern patternOfCsr(const CsrMatrix<T>&);                                                    \
    template HybridValuedMatrix<T> encodeHybridValued(const CsrMatrix<T>&, const std::vector<DenseRegion>&,      \
                                                      const HybridValuedOptions&);                               \
    template CsrMatrix<T> decodeHybridValued(const HybridValuedMatrix<T>&);                                      \
    template void validateHybridValued(const HybridValuedMatrix<T>&);
SPYGLASS_HYBRID_VALUED_COMPLEX(std::complex<float>)
SPYGLASS_HYBRID_VALUED_COMPLEX(std::complex<double>)
#undef SPYGLASS_HYBRID_VALUED_COMPLEX

} // namespace spyglass
