// Steps 1-3 of the seed: COO in, fixed-threshold row segments with their own diagonal offsets and
// DIA storage, then the merge into blocks. Also plain DIA and the decoders back to COO.
#include "spyglass/segdia.h"
#include "core/segdia_entries.h"
#include "spyglass/segdia_remainder_blocks.h"

#include "spyglass/error.h"

#include <algorithm>
#include <climits>
#include <cmath>
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

// One entry of a segment while it is being built.
template <typename T>
struct SegmentEntry {
    Index offset = 0;  // col - row
    Index row = 0;     // local to the segment
    T value = T(0);
};

// The remainder rule (SegmentedDiaRemainder::Auto). A diagonal that meets h rows of a segment and
// holds f nonzeros there costs, in the bytes an SpMV must stream:
//   as DIA:  h x sizeof(T)            (one slot per row, filled or not; its 4-byte offset is noise)
//   as CSR:  f x (sizeof(T) + 4)      (value and 32-bit column per nonzero)
// so by bytes alone it stays DIA when h x sizeof(T) <= f x (sizeof(T) + 4), i.e. when its fill f / h
// is at least sizeof(T) / (sizeof(T) + 4) = 4 / 8 = 1/2 for float, 8 / 12 = 2/3 for double.
// A full stencil diagonal (f = h) always stays; a diagonal with one nonzero in 1024 rows goes (4096
// bytes of float slots against 8). Ties stay DIA: the DIA path is the faster one per byte.
// The remainder also needs h + 1 row starts of 4 bytes, once per segment. So, second step: when the
// diagonals the rule drops would save, together, no more than those 4 x (h + 1) bytes, the segment
// keeps them all (float, h = 1024: one stray nonzero saves 4096 - 8 = 4088 < 4100 bytes of row
// starts, so the segment stays pure DIA). Diagonals that hold no nonzero at all (explicit zeros
// only) are dropped in any case: they cost nothing as CSR.
// CSR-side bytes (entries and row starts) are weighted by options.csrByteWeight w: the remainder's
// gathers and row starts stream slower than DIA slots. With the plain count (w = 1) the H100 lost on
// olm1000 in double (four diagonals half full went to CSR: 8 % fewer bytes, 1.56x -> 1.15x
// cuSPARSE); w = 1.5 keeps a diagonal from fill 1/3 (float) and 4/9 (double) on.
template <typename T>
double diaBytes(Count rows) { return double(rows) * double(sizeof(T)); }
template <typename T>
double csrBytes(Count filled, double weight) { return weight * double(filled) * double(sizeof(T) + sizeof(Index)); }

// Which of a segment's diagonals stay DIA under the policy; fill[d] = nonzeros on diagonal d.
template <typename T>
std::vector<char> diagonalsToKeep(SegmentedDiaRemainder policy, double weight, Index rows, const std::vector<Count>& fill) {
    std::vector<char> keep(fill.size(), policy == SegmentedDiaRemainder::Off ? 1 : 0);
    if (policy != SegmentedDiaRemainder::Auto) return keep;
    double saved = 0;
    bool movesEntries = false;
    for (std::size_t d = 0; d < fill.size(); ++d) {
        keep[d] = diaBytes<T>(rows) <= csrBytes<T>(fill[d], weight);
        if (!keep[d] && fill[d] > 0) {
            saved += diaBytes<T>(rows) - csrBytes<T>(fill[d], weight);
            movesEntries = true;
        }
    }
    if (movesEntries && saved <= weight * double(sizeof(Index)) * (double(rows) + 1))
        for (std::size_t d = 0; d < fill.size(); ++d) keep[d] = keep[d] || fill[d] > 0;
    return keep;
}

// Past the seed: segments too heavy for one thread block (Auto only). The DIA pass gives each merged
// block one thread block, so a segment whose DIA part outweighs the rest many times over runs alone on
// one SM while the others finish: a dense 768 x 768 block among scattered entries kept about 1000
// diagonals in one 256-row segment, and the whole SpMV took 0.58 ms where cuSPARSE took 0.05 ms (H200,
// bench/results/spmv_dia_remainder.md, "blocky valued"). Such a segment is built with all its
// nonzeros in the remainder instead, whose row blocks spread any row range over as many thread blocks
// as its entries need. Heavy: DIA slots above kHeavySegmentMeanFactor x the mean segment's, and above
// 1 / kHeavySegmentShareDivisor of the whole matrix's slots and remainder entries, i.e. more than a
// fair share when about a thousand blocks run at once (an H100 or H200 holds 8 per SM). A banded
// matrix, whose segments are alike, never has one.
constexpr double kHeavySegmentMeanFactor = 16;
constexpr double kHeavySegmentShareDivisor = 1024;

template <typename T>
std::vector<char> heavySegments(const SegmentedDiaMatrix<T>& m) {
    std::vector<char> heavy;
    const Index segments = m.segments();
    if (segments == 0) return heavy;
    const double slots = double(m.values.size());
    const double mean = slots / double(segments);
    const double share = (slots + double(m.remainderValues.size())) / kHeavySegmentShareDivisor;
    bool any = false;
    heavy.assign(static_cast<std::size_t>(segments), 0);
    for (Index s = 0; s < segments; ++s) {
        const double work = double(m.segmentDiagonals(s)) * double(m.segmentRows(s));
        heavy[std::size_t(s)] = work > kHeavySegmentMeanFactor * mean && work > share;
        any = any || heavy[std::size_t(s)];
    }
    if (!any) heavy.clear();
    return heavy;
}

// Past the seed: a DIA part too small to pay for its pass (Auto only). With a remainder, the SpMV is
// two passes (the DIA segments, then the remainder's row blocks), and the second reads x again and y
// of its rows. When the DIA part saves less than remainderMinSaving of the bytes that one pass over the
// whole matrix as CSR would move, everything goes to the remainder: on a matrix of scattered entries
// where Auto kept 15 000 of 10.5 M nonzeros as DIA, the DIA pass alone cost ~20 us (blocky valued,
// H200), and on bcsstk13 x120 (a fifth as DIA, padded 1.9x) the two passes ran at 0.85x cuSPARSE
// where the remainder pass alone beats it (bench/results/spmv_dia_remainder.md).
// Matrices below kTwoPassRuleMinNonzeros keep Auto's split as it is: there a pass is bound by
// launch and latency, not by the bytes this rule counts, and the layout is what a user explores.
constexpr Count kTwoPassRuleMinNonzeros = Count(1) << 20;

template <typename T>
bool diaPartPaysItsPass(const SegmentedDiaMatrix<T>& m, double minSaving) {
    if (m.remainderValues.empty() || m.values.empty()) return true;  // one pass either way
    if (m.nonzeros < kTwoPassRuleMinNonzeros) return true;
    const double entryBytes = double(sizeof(T) + sizeof(Index));
    const double split = double(m.values.size()) * double(sizeof(T)) + double(m.remainderValues.size()) * entryBytes +
                         double(m.remainderRowStart.size()) * double(sizeof(Index)) +
                         double(m.cols + m.rows) * double(sizeof(T));
    const double oneCsrPass = double(m.nonzeros) * entryBytes + double(m.rows + m.segments()) * double(sizeof(Index));
    return split <= (1.0 - minSaving) * oneCsrPass;
}

template <typename T>
SegmentedDiaMatrix<T> buildSegmentedDiaWith(const CooMatrix<T>& coo, const SegmentedDiaOptions& options,
                                            const std::vector<char>& allInRemainder);

} // namespace

template <typename T>
SegmentedDiaMatrix<T> buildSegmentedDia(const CooMatrix<T>& coo, const SegmentedDiaOptions& options) {
    if (options.threshold == kChooseSegmentThreshold) return buildSegmentedDiaChoosingThreshold(coo, options);
    SegmentedDiaMatrix<T> m = buildSegmentedDiaWith(coo, options, {});
    if (options.remainder != SegmentedDiaRemainder::Auto) return m;
    const std::vector<char> heavy = heavySegments(m);
    if (!heavy.empty()) m = buildSegmentedDiaWith(coo, options, heavy);
    if (diaPartPaysItsPass(m, options.remainderMinSaving)) return m;
    SegmentedDiaOptions all = options;
    all.remainder = SegmentedDiaRemainder::All;
    return buildSegmentedDiaWith(coo, all, {});
}

namespace {

// The build itself; segments marked in allInRemainder (empty: none) keep every nonzero in the remainder.
template <typename T>
SegmentedDiaMatrix<T> buildSegmentedDiaWith(const CooMatrix<T>& coo, const SegmentedDiaOptions& options,
                                            const std::vector<char>& allInRemainder) {
    validateCoo(coo, "segmented DIA");
    if (options.threshold < 1)
        throw InputError("segmented DIA: the segment threshold must be at least 1 row (or 0: chosen per matrix), got " +
                         std::to_string(options.threshold));
    if (options.remainder != SegmentedDiaRemainder::Off && options.remainder != SegmentedDiaRemainder::Auto &&
        options.remainder != SegmentedDiaRemainder::All)
        throw InputError("segmented DIA: unknown remainder policy " + std::to_string(int(options.remainder)));
    if (!(options.csrByteWeight > 0) || !std::isfinite(options.csrByteWeight))
        throw InputError("segmented DIA: the CSR byte weight must be a positive number, got " +
                         std::to_string(options.csrByteWeight));
    if (!(options.remainderMinSaving >= 0 && options.remainderMinSaving < 1))
        throw InputError("segmented DIA: the remainder's minimum saving must lie in [0, 1), got " +
                         std::to_string(options.remainderMinSaving));
    SegmentedDiaMatrix<T> m;
    m.rows = coo.rows;
    m.cols = coo.cols;
    m.threshold = options.threshold;
    const Index segments = coo.rows == 0 ? 0 : Index((Count(coo.rows) + options.threshold - 1) / options.threshold);
    const SegmentBuckets buckets = bucketBySegment(coo, options.threshold, segments);

    const std::size_t starts = static_cast<std::size_t>(segments) + 1;
    m.segmentFirstRow.assign(starts, 0);
    m.segmentOffsetStart.assign(starts, 0);
    m.segmentValueStart.assign(starts, 0);
    m.segmentRemainderStart.assign(starts, 0);
    m.segmentRemainderRowStart.assign(starts, 0);
    m.nonzeros = 0;
    std::vector<SegmentEntry<T>> entries;
    std::vector<Index> segmentOffsets;
    std::vector<Count> fill;
    std::vector<Index> rowCount;
    Count pureSlots = 0;  // what Off would store: every diagonal of every segment
    for (Index s = 0; s < segments; ++s) {
        const Index firstRow = Index(Count(s) * options.threshold);
        const Index rowsHere = std::min<Index>(options.threshold, coo.rows - firstRow);
        m.segmentFirstRow[s] = firstRow;

        // Step 2: the segment's entries by (offset, row); duplicates add up in input order, as in
        // every other conversion of the library (a stable sort keeps that order).
        entries.clear();
        for (Count e = buckets.start[s]; e < buckets.start[s + 1]; ++e) {
            const Count k = buckets.entries[e];
            entries.push_back({coo.colIndex[k] - coo.rowIndex[k], coo.rowIndex[k] - firstRow, coo.values[k]});
        }
        std::stable_sort(entries.begin(), entries.end(), [](const SegmentEntry<T>& a, const SegmentEntry<T>& b) {
            return a.offset != b.offset ? a.offset < b.offset : a.row < b.row;
        });
        std::size_t unique = 0;
        for (std::size_t e = 0; e < entries.size(); ++e) {
            if (unique > 0 && entries[unique - 1].offset == entries[e].offset && entries[unique - 1].row == entries[e].row) {
                entries[unique - 1].value += entries[e].value;
            } else {
                entries[unique] = entries[e];
                entries[unique].value = T(0) + entries[e].value;
                ++unique;
            }
        }
        entries.resize(unique);
        // The segment's sorted, distinct offsets (explicit zeros included, as the seed's builder had
        // them) and each one's nonzeros.
        segmentOffsets.clear();
        fill.clear();
        for (const auto& e : entries) {
            if (segmentOffsets.empty() || segmentOffsets.back() != e.offset) {
                segmentOffsets.push_back(e.offset);
                fill.push_back(0);
            }
            fill.back() += e.value != T(0);
        }
        const bool forced = !allInRemainder.empty() && allInRemainder[std::size_t(s)];
        const std::vector<char> keep =
            diagonalsToKeep<T>(forced ? SegmentedDiaRemainder::All : options.remainder, options.csrByteWeight, rowsHere, fill);
        pureSlots += Count(segmentOffsets.size()) * rowsHere;

        // DIA part: the kept diagonals, diagonal-major.
        std::vector<Count> keptIndex(segmentOffsets.size(), -1);
        Count kept = 0;
        for (std::size_t d = 0; d < segmentOffsets.size(); ++d) {
            if (!keep[d]) continue;
            keptIndex[d] = kept++;
            m.offsets.push_back(segmentOffsets[d]);
        }
        m.segmentOffsetStart[s + 1] = Count(m.offsets.size());
        m.segmentValueStart[s + 1] = m.segmentValueStart[s] + kept * rowsHere;
        const Count valueStart = m.segmentValueStart[s];
        m.values.resize(static_cast<std::size_t>(m.segmentValueStart[s + 1]), T(0));

        // Remainder: the dropped diagonals' nonzeros, rows in order; within a row the entries come in
        // offset order, i.e. columns ascending (a counting sort by row over the (offset, row) order).
        rowCount.assign(static_cast<std::size_t>(rowsHere) + 1, 0);
        Count remainder = 0;
        std::size_t d = 0;
        for (const auto& e : entries) {
            while (segmentOffsets[d] != e.offset) ++d;
            if (keep[d]) {
                m.values[static_cast<std::size_t>(valueStart + keptIndex[d] * rowsHere + e.row)] = e.value;
                m.nonzeros += e.value != T(0);
            } else if (e.value != T(0)) {
                ++rowCount[e.row + 1];
                ++remainder;
            }
        }
        if (remainder > Count(INT32_MAX))
            throw InputError("segmented DIA: segment " + std::to_string(s) + " would keep " + std::to_string(remainder) +
                             " nonzeros in its CSR remainder, more than 2^31 - 1; choose a smaller threshold");
        const Count remainderStart = m.segmentRemainderStart[s];
        m.segmentRemainderStart[s + 1] = remainderStart + remainder;
        m.segmentRemainderRowStart[s + 1] = m.segmentRemainderRowStart[s];
        if (remainder == 0) continue;
        for (Index i = 0; i < rowsHere; ++i) rowCount[i + 1] += rowCount[i];
        m.remainderRowStart.insert(m.remainderRowStart.end(), rowCount.begin(), rowCount.end());
        m.segmentRemainderRowStart[s + 1] += Count(rowsHere) + 1;
        m.remainderColumns.resize(static_cast<std::size_t>(remainderStart + remainder));
        m.remainderValues.resize(static_cast<std::size_t>(remainderStart + remainder));
        d = 0;
        for (const auto& e : entries) {
            while (segmentOffsets[d] != e.offset) ++d;
            if (keep[d] || e.value == T(0)) continue;
            const std::size_t at = static_cast<std::size_t>(remainderStart + rowCount[e.row]++);
            m.remainderColumns[at] = firstRow + e.row + e.offset;
            m.remainderValues[at] = e.value;
        }
        m.nonzeros += remainder;
    }
    if (segments > 0) m.segmentFirstRow[segments] = coo.rows;

    // The matrix-level check of Auto: values, columns and row starts against pure DIA's values (not
    // when heavy segments were moved: pure DIA would put them back).
    if (options.remainder == SegmentedDiaRemainder::Auto && allInRemainder.empty() && !m.remainderValues.empty()) {
        const double withRemainder = double(m.values.size()) * sizeof(T) +
                                     double(m.remainderValues.size()) * (sizeof(T) + sizeof(Index)) +
                                     double(m.remainderRowStart.size()) * sizeof(Index);
        const double pure = double(pureSlots) * sizeof(T);
        if (withRemainder > (1.0 - options.remainderMinSaving) * pure) {
            SegmentedDiaOptions off = options;
            off.remainder = SegmentedDiaRemainder::Off;
            return buildSegmentedDiaWith(coo, off, {});
        }
    }

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

} // namespace

template <typename T>
SegmentedDiaMatrix<T> buildHdia(const CooMatrix<T>& coo, Index rowsPerGroup) {
    SegmentedDiaOptions options;
    options.threshold = rowsPerGroup;
    options.merge = false;
    options.remainder = SegmentedDiaRemainder::Off;  // the baseline as the seed names it: pure DIA
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
    // Sized once (reopening a big export spent most of its time regrowing these).
    const auto entries = static_cast<std::size_t>(m.nonzeros);  // DIA part and remainder
    coo.rowIndex.reserve(entries);
    coo.colIndex.reserve(entries);
    coo.values.reserve(entries);
    for (Index s = 0; s < m.segments(); ++s)
        segdia_detail::forEachSegmentEntry(m, s, [&](Index row, Index col, T v) {
            coo.rowIndex.push_back(row);
            coo.colIndex.push_back(col);
            coo.values.push_back(v);
        });
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
    for (const T& v : m.values) stats.diaNonzeros += v != T(0);
    for (const T& v : m.remainderValues) stats.remainderNonzeros += v != T(0);
    for (Index s = 0; s < m.segments(); ++s) {
        stats.remainderSegments += m.segmentRemainderCount(s) > 0;
        stats.storedSlots += Count(m.segmentDiagonals(s)) * m.segmentRows(s);
        stats.maxSegmentDiagonals = std::max(stats.maxSegmentDiagonals, m.segmentDiagonals(s));
        stats.totalDiagonals += m.segmentDiagonals(s);
    }
    stats.paddingRatio = stats.diaNonzeros > 0 ? double(stats.storedSlots) / double(stats.diaNonzeros) : 0.0;
    stats.remainderOwnPass = !m.remainderValues.empty() && !remainderIsLight(m) && remainderFitsRowBlocks(m);
    for (Index b = 0; b < m.blocks(); ++b) {
        const Count work = m.blockWork(b);
        stats.maxBlockWork = b == 0 ? work : std::max(stats.maxBlockWork, work);
        stats.minBlockWork = b == 0 ? work : std::min(stats.minBlockWork, work);
    }
    stats.bytes = m.values.size() * sizeof(T) + m.offsets.size() * sizeof(Index) +
                  m.segmentFirstRow.size() * sizeof(Index) + m.segmentOffsetStart.size() * sizeof(Count) +
                  m.segmentValueStart.size() * sizeof(Count) + m.blockStart.size() * sizeof(Index) +
                  m.blockSegments.size() * sizeof(Index);
    stats.remainderBytes = m.segmentRemainderStart.size() * sizeof(Count) + m.segmentRemainderRowStart.size() * sizeof(Count) +
                           m.remainderRowStart.size() * sizeof(Index) + m.remainderColumns.size() * sizeof(Index) +
                           m.remainderValues.size() * sizeof(T);
    stats.bytes += stats.remainderBytes;
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
    out.segmentRemainderStart = m.segmentRemainderStart;
    out.segmentRemainderRowStart = m.segmentRemainderRowStart;
    out.remainderRowStart = m.remainderRowStart;
    out.remainderColumns = m.remainderColumns;
    out.remainderValues.assign(m.remainderValues.begin(), m.remainderValues.end());
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
SPYGLASS_SEGDIA_INSTANTIATE(std::complex<float>)
SPYGLASS_SEGDIA_INSTANTIATE(std::complex<double>)
template SegmentedDiaMatrix<float> convertValues<float, double>(const SegmentedDiaMatrix<double>&);
template SegmentedDiaMatrix<double> convertValues<double, float>(const SegmentedDiaMatrix<float>&);
template SegmentedDiaMatrix<float> convertValues<float, float>(const SegmentedDiaMatrix<float>&);
template SegmentedDiaMatrix<double> convertValues<double, double>(const SegmentedDiaMatrix<double>&);

} // namespace spyglass
