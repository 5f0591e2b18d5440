// Steps 1-3 of the seed: COO in, fixed-threshold row segments with their own diagonal offsets and
// DIA storage, then the merge into blocks. Also plain DIA and the decoders back to COO.
#include "spyglass/segmenteddia.h"

#include "spyglass/error.h"

#include <algorithm>
#include <string>

namespace spyglass {

namespace {

template <typename T>
void validateCoo(const CooMatrix<T>& coo, const char* what) {
    if (coo.rows < 0 || coo.cols < 0)
        throw InputError(std::string(what) + ": negative matrix size " + std::to_string(coo.rows) + " x " +
                         std::to_string(coo.cols));
    if (coo.rowIndex.size() != coo.values.size() || coo.colIndex.size() != coo.values.size())
        throw InputError(std::string(what) + ": coordinate arrays differ in length (rows " +
                         std::to_string(coo.rowIndex.size()) + ", cols " + std::to_string(coo.colIndex.size()) +
                         ", values " + std::to_string(coo.values.size()) + ")");
    for (std::size_t k = 0; k < coo.values.size(); ++k) {
        if (coo.rowIndex[k] < 0 || coo.rowIndex[k] >= coo.rows || coo.colIndex[k] < 0 || coo.colIndex[k] >= coo.cols)
            throw InputError(std::string(what) + ": entry " + std::to_string(k) + " at (" +
                             std::to_string(coo.rowIndex[k]) + ", " + std::to_string(coo.colIndex[k]) +
                             ") lies outside the " + std::to_string(coo.rows) + " x " + std::to_string(coo.cols) +
                             " matrix");
    }
}

// Entries grouped by segment with a counting sort: O(nnz), no global sort of the COO.
struct SegmentBuckets {
    std::vector<Count> start;   // segments + 1
    std::vector<Count> entries; // entry indices, grouped by segment
};

template <typename T>
SegmentBuckets bucketBySegment(const CooMatrix<T>& coo, Index threshold, Index segments) {
    SegmentBuckets buckets;
    buckets.start.assign(static_cast<std::size_t>(segments) + 1, 0);
    for (const Index row : coo.rowIndex) ++buckets.start[row / threshold + 1];
    for (Index s = 0; s < segments; ++s) buckets.start[s + 1] += buckets.start[s];
    std::vector<Count> next(buckets.start.begin(), buckets.start.end() - 1);
    buckets.entries.resize(coo.values.size());
    for (std::size_t k = 0; k < coo.values.size(); ++k) buckets.entries[next[coo.rowIndex[k] / threshold]++] = Count(k);
    return buckets;
}

} // namespace

template <typename T>
SegmentedDiaMatrix<T> buildSegmentedDia(const CooMatrix<T>& coo, const SegmentedDiaOptions& options) {
    validateCoo(coo, "segmented DIA");
    if (options.threshold < 1)
        throw InputError("segmented DIA: the segment threshold must be at least 1 row, got " +
                         std::to_string(options.threshold));
    SegmentedDiaMatrix<T> m;
    m.rows = coo.rows;
    m.cols = coo.cols;
    m.threshold = options.threshold;
    const Index segments = coo.rows == 0 ? 0 : Index((Count(coo.rows) + options.threshold - 1) / options.threshold);
    const SegmentBuckets buckets = bucketBySegment(coo, options.threshold, segments);

    // Step 2: per segment, offset = col - row, sorted and de-duplicated.
    m.segmentFirstRow.resize(static_cast<std::size_t>(segments) + 1);
    m.segmentOffsetStart.assign(static_cast<std::size_t>(segments) + 1, 0);
    m.segmentValueStart.assign(static_cast<std::size_t>(segments) + 1, 0);
    std::vector<Index> segmentOffsets;
    for (Index s = 0; s < segments; ++s) {
        m.segmentFirstRow[s] = Index(Count(s) * options.threshold);
        segmentOffsets.clear();
        for (Count e = buckets.start[s]; e < buckets.start[s + 1]; ++e) {
            const Count k = buckets.entries[e];
            segmentOffsets.push_back(coo.colIndex[k] - coo.rowIndex[k]);
        }
        std::sort(segmentOffsets.begin(), segmentOffsets.end());
        segmentOffsets.erase(std::unique(segmentOffsets.begin(), segmentOffsets.end()), segmentOffsets.end());
        m.offsets.insert(m.offsets.end(), segmentOffsets.begin(), segmentOffsets.end());
        m.segmentOffsetStart[s + 1] = Count(m.offsets.size());
        const Index rowsHere = std::min<Index>(options.threshold, coo.rows - m.segmentFirstRow[s]);
        m.segmentValueStart[s + 1] = m.segmentValueStart[s] + Count(segmentOffsets.size()) * rowsHere;
    }
    if (segments > 0) m.segmentFirstRow[segments] = coo.rows;

    // DIA inside each segment; duplicates add up, as in every other conversion of the library.
    m.values.assign(static_cast<std::size_t>(segments > 0 ? m.segmentValueStart[segments] : 0), T(0));
    for (Index s = 0; s < segments; ++s) {
        const Index* first = m.offsets.data() + m.segmentOffsetStart[s];
        const Index* last = m.offsets.data() + m.segmentOffsetStart[s + 1];
        const Index rowsHere = m.segmentRows(s);
        for (Count e = buckets.start[s]; e < buckets.start[s + 1]; ++e) {
            const Count k = buckets.entries[e];
            const Index offset = coo.colIndex[k] - coo.rowIndex[k];
            const Count d = std::lower_bound(first, last, offset) - first;
            m.values[m.segmentValueStart[s] + d * rowsHere + (coo.rowIndex[k] - m.segmentFirstRow[s])] += coo.values[k];
        }
    }
    m.nonzeros = 0;
    for (const T& v : m.values) m.nonzeros += v != T(0);

    // Step 3: merge (or, for HDIA, one block per segment).
    std::vector<std::vector<Index>> blocks;
    if (options.merge) {
        std::vector<Count> work(static_cast<std::size_t>(segments));
        for (Index s = 0; s < segments; ++s) work[s] = m.segmentWork(s);
        blocks = mergeSegmentsByWork(work, &m.mergeSteps);
    } else {
        blocks.resize(static_cast<std::size_t>(segments));
        for (Index s = 0; s < segments; ++s) blocks[s] = {s};
    }
    m.blockStart.assign(1, 0);
    for (const auto& block : blocks) {
        m.blockSegments.insert(m.blockSegments.end(), block.begin(), block.end());
        m.blockStart.push_back(Index(m.blockSegments.size()));
    }
    return m;
}

template <typename T>
SegmentedDiaMatrix<T> buildHdia(const CooMatrix<T>& coo, Index rowsPerGroup) {
    SegmentedDiaOptions options;
    options.threshold = rowsPerGroup;
    options.merge = false;
    return buildSegmentedDia(coo, options);
}

template <typename T>
DiaMatrix<T> buildDia(const CooMatrix<T>& coo, Count maxSlots) {
    validateCoo(coo, "DIA");
    DiaMatrix<T> m;
    m.rows = coo.rows;
    m.cols = coo.cols;
    m.offsets.reserve(coo.values.size());
    for (std::size_t k = 0; k < coo.values.size(); ++k) m.offsets.push_back(coo.colIndex[k] - coo.rowIndex[k]);
    std::sort(m.offsets.begin(), m.offsets.end());
    m.offsets.erase(std::unique(m.offsets.begin(), m.offsets.end()), m.offsets.end());
    m.offsets.shrink_to_fit();
    const Count slots = m.storedSlots();
    if (slots > maxSlots)
        throw OutOfMemoryError("DIA storage of " + std::to_string(m.offsets.size()) + " diagonals x " +
                                   std::to_string(m.rows) + " rows = " + std::to_string(slots) +
                                   " slots exceeds the limit of " + std::to_string(maxSlots),
                               __FILE__, __LINE__);
    m.values.assign(static_cast<std::size_t>(slots), T(0));
    for (std::size_t k = 0; k < coo.values.size(); ++k) {
        const Index offset = coo.colIndex[k] - coo.rowIndex[k];
        const Count d = std::lower_bound(m.offsets.begin(), m.offsets.end(), offset) - m.offsets.begin();
        m.values[d * m.rows + coo.rowIndex[k]] += coo.values[k];
    }
    m.nonzeros = 0;
    for (const T& v : m.values) m.nonzeros += v != T(0);
    return m;
}

template <typename T>
DiaMatrix<T> buildDia(const CooMatrix<T>& coo) {
    return buildDia(coo, Count(1) << 28);  // 2 GiB of doubles: past that plain DIA is hopeless anyway
}

template <typename T>
CooMatrix<T> segmentedDiaToCoo(const SegmentedDiaMatrix<T>& m) {
    CooMatrix<T> coo;
    coo.rows = m.rows;
    coo.cols = m.cols;
    for (Index s = 0; s < m.segments(); ++s) {
        const Index rowsHere = m.segmentRows(s);
        const Index diagonals = m.segmentDiagonals(s);
        if (diagonals == 0) continue;  // a segment of 2^31 empty rows (read from a file) costs nothing
        // Offsets ascend, so walking diagonals within a row yields ascending columns.
        for (Index i = 0; i < rowsHere; ++i) {
            for (Index d = 0; d < diagonals; ++d) {
                const T v = m.values[m.segmentValueStart[s] + Count(d) * rowsHere + i];
                if (v == T(0)) continue;
                const Index row = m.segmentFirstRow[s] + i;
                coo.rowIndex.push_back(row);
                coo.colIndex.push_back(row + m.offsets[m.segmentOffsetStart[s] + d]);
                coo.values.push_back(v);
            }
        }
    }
    return coo;
}

template <typename T>
CooMatrix<T> diaToCoo(const DiaMatrix<T>& m) {
    CooMatrix<T> coo;
    coo.rows = m.rows;
    coo.cols = m.cols;
    for (Index i = 0; i < m.rows; ++i) {
        for (std::size_t d = 0; d < m.offsets.size(); ++d) {
            const T v = m.values[Count(d) * m.rows + i];
            if (v == T(0)) continue;
            coo.rowIndex.push_back(i);
            coo.colIndex.push_back(i + m.offsets[d]);
            coo.values.push_back(v);
        }
    }
    return coo;
}

template <typename T>
SegmentedDiaStats computeSegmentedDiaStats(const SegmentedDiaMatrix<T>& m) {
    SegmentedDiaStats stats;
    stats.segments = m.segments();
    stats.blocks = m.blocks();
    stats.nonzeros = m.nonzeros;
    for (Index s = 0; s < m.segments(); ++s) {
        stats.storedSlots += m.segmentWork(s);
        stats.maxSegmentDiagonals = std::max(stats.maxSegmentDiagonals, m.segmentDiagonals(s));
        stats.totalDiagonals += m.segmentDiagonals(s);
    }
    stats.paddingRatio = stats.nonzeros > 0 ? double(stats.storedSlots) / double(stats.nonzeros) : 0.0;
    for (Index b = 0; b < m.blocks(); ++b) {
        const Count work = m.blockWork(b);
        stats.maxBlockWork = b == 0 ? work : std::max(stats.maxBlockWork, work);
        stats.minBlockWork = b == 0 ? work : std::min(stats.minBlockWork, work);
    }
    stats.bytes = m.values.size() * sizeof(T) + m.offsets.size() * sizeof(Index) +
                  m.segmentFirstRow.size() * sizeof(Index) + m.segmentOffsetStart.size() * sizeof(Count) +
                  m.segmentValueStart.size() * sizeof(Count) + m.blockStart.size() * sizeof(Index) +
                  m.blockSegments.size() * sizeof(Index);
    return stats;
}

template <typename To, typename From>
SegmentedDiaMatrix<To> convertValues(const SegmentedDiaMatrix<From>& m) {
    SegmentedDiaMatrix<To> out;
    out.rows = m.rows;
    out.cols = m.cols;
    out.threshold = m.threshold;
    out.nonzeros = m.nonzeros;
    out.segmentFirstRow = m.segmentFirstRow;
    out.segmentOffsetStart = m.segmentOffsetStart;
    out.offsets = m.offsets;
    out.segmentValueStart = m.segmentValueStart;
    out.values.assign(m.values.begin(), m.values.end());
    out.blockStart = m.blockStart;
    out.blockSegments = m.blockSegments;
    out.mergeSteps = m.mergeSteps;
    return out;
}

#define SPYGLASS_SEGDIA_INSTANTIATE(T)                                                                   \
    template SegmentedDiaMatrix<T> buildSegmentedDia<T>(const CooMatrix<T>&, const SegmentedDiaOptions&); \
    template SegmentedDiaMatrix<T> buildHdia<T>(const CooMatrix<T>&, Index);                             \
    template DiaMatrix<T> buildDia<T>(const CooMatrix<T>&);                                              \
    template DiaMatrix<T> buildDia<T>(const CooMatrix<T>&, Count);                                       \
    template CooMatrix<T> segmentedDiaToCoo<T>(const SegmentedDiaMatrix<T>&);                            \
    template CooMatrix<T> diaToCoo<T>(const DiaMatrix<T>&);                                              \
    template SegmentedDiaStats computeSegmentedDiaStats<T>(const SegmentedDiaMatrix<T>&);
SPYGLASS_SEGDIA_INSTANTIATE(float)
SPYGLASS_SEGDIA_INSTANTIATE(double)
template SegmentedDiaMatrix<float> convertValues<float, double>(const SegmentedDiaMatrix<double>&);
template SegmentedDiaMatrix<double> convertValues<double, float>(const SegmentedDiaMatrix<float>&);
template SegmentedDiaMatrix<float> convertValues<float, float>(const SegmentedDiaMatrix<float>&);
template SegmentedDiaMatrix<double> convertValues<double, double>(const SegmentedDiaMatrix<double>&);

} // namespace spyglass
