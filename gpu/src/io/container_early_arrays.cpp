#include "io/container_early_arrays.h"

#include "core/hugepages.h"
#include "core/parallel_ranges.h"
#include "core/stagetimings.h"
#include "io/container_io.h"

#include "spyglass/container.h"
#include "spyglass/hostmemory.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

namespace spyglass::container_decode {

namespace {

// The pages of an array's reserved capacity, in 2 MB chunks (one transparent huge page each), faulted
// in by writing a zero into each 4 KB: the elements are int32 or double, implicit-lifetime types whose
// storage the allocation already provides, and resize() writes the same zeros again afterwards.
// (madvise(MADV_POPULATE_WRITE) faults them too, but went no faster on any number of threads, 40 ms for
// 192 MB on the 16-core host, and slowed the checksum's own faults tenfold meanwhile.)
template <typename T>
class ChunkedPages {
public:
    static constexpr std::size_t kChunkElements = (std::size_t(2) << 20) / sizeof(T);

    ChunkedPages(std::vector<T>& array, std::size_t entries)
        : m_array(array), m_entries(entries), m_chunks((entries + kChunkElements - 1) / kChunkElements),
          m_state(new std::atomic<int>[m_chunks]()) {
        array.reserve(entries);
        memory::adviseHugePages(array);
        m_data = array.data();
    }

    std::size_t chunks() const { return m_chunks; }
    T* data() const { return m_entries > 0 ? m_data : nullptr; }
    std::size_t sized() const { return m_sized.load(std::memory_order_acquire); }

    // Faults chunk c in unless another thread has claimed it.
    void claim(std::size_t c) {
        int expected = kFree;
        if (!m_state[c].compare_exchange_strong(expected, kClaimed)) return;
        const std::size_t last = std::min(m_entries, (c + 1) * kChunkElements);
        for (std::size_t k = c * kChunkElements; k < last; k += 4096 / sizeof(T)) m_data[k] = T{};
        m_state[c].store(kDone, std::memory_order_release);
    }

    // Value-initialises the array chunk by chunk, each once its pages are in (faulting them itself
    // when no other thread has got to them: nothing waits on a thread that never started), and
    // publishes how far it has got.
    void resizeBehindFaults() {
        for (std::size_t c = 0; c < m_chunks; ++c) {
            claim(c);
            while (m_state[c].load(std::memory_order_acquire) != kDone) std::this_thread::yield();
            const std::size_t n = std::min(m_entries, (c + 1) * kChunkElements);
            m_array.resize(n);
            m_sized.store(n, std::memory_order_release);
        }
    }

private:
    static constexpr int kFree = 0, kClaimed = 1, kDone = 2;
    std::vector<T>& m_array;
    T* m_data = nullptr;
    std::size_t m_entries, m_chunks;
    std::unique_ptr<std::atomic<int>[]> m_state;
    std::atomic<std::size_t> m_sized{0};
};

} // namespace

// Everything the sizing threads use is allocated here, on the caller's thread, so that once they run
// nothing can fail: a waitSized never waits for a sizing that stopped.
struct EarlyCoordinateArrays::Sizing {
    Sizing(std::size_t entries, bool withValues)
        : entries(entries), withValues(withValues), rows(arrays.rows, entries), cols(arrays.cols, entries),
          values(arrays.values, withValues ? entries : 0) {
        // The faulting threads take chunks of all arrays in step (by the fraction of each array done),
        // so that every zero-fill finds its next chunk ready.
        const auto add = [&](int array, std::size_t chunks) {
            for (std::size_t c = 0; c < chunks; ++c) order.push_back({array, c, double(c) / double(chunks)});
        };
        add(0, rows.chunks());
        add(1, cols.chunks());
        add(2, values.chunks());
        std::stable_sort(order.begin(), order.end(), [](const Chunk& x, const Chunk& y) { return x.at < y.at; });
    }

    // Each array's std::vector value-initialisation on a thread of its own (the part no number of
    // threads splits), right behind the other threads that fault its pages in ahead of it, so that it
    // writes at memory speed instead of fault speed: 12 ms for 192 MB on the 16-core host, against
    // 25 ms when each array faulted its own pages.
    void run(std::size_t faulters) {
        const auto begin = std::chrono::steady_clock::now();
        const std::size_t fillers = withValues ? 3 : 2;
        parallel::onThreads(fillers + faulters, [&](std::size_t t) {
            if (t == 0) return rows.resizeBehindFaults();
            if (t == 1) return cols.resizeBehindFaults();
            if (t == 2 && withValues) return values.resizeBehindFaults();
            for (std::size_t k; (k = next.fetch_add(1)) < order.size();) {
                const Chunk& chunk = order[k];
                if (chunk.array == 0) rows.claim(chunk.index);
                else if (chunk.array == 1) cols.claim(chunk.index);
                else values.claim(chunk.index);
            }
        });
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    }

    std::size_t sized() const { return std::min({rows.sized(), cols.sized(), withValues ? values.sized() : entries}); }

    struct Chunk {
        int array;
        std::size_t index;
        double at;
    };
    std::size_t entries;
    bool withValues;
    CoordinateArrays arrays;
    ChunkedPages<Index> rows, cols;
    ChunkedPages<double> values;
    std::vector<Chunk> order;
    std::atomic<std::size_t> next{0};
    double seconds = 0;  // for SPYGLASS_TIMINGS
    std::thread thread;
};

EarlyCoordinateArrays::EarlyCoordinateArrays() = default;

EarlyCoordinateArrays::EarlyCoordinateArrays(std::size_t entries, bool withValues) : m_sizing(std::make_unique<Sizing>(entries, withValues)) {
    Sizing* s = m_sizing.get();
    const std::size_t threads = parallel::threadCount();  // the caller's --threads reaches the sizing threads
    const std::size_t faulters = parallel::threadsFor(entries * (2 * sizeof(Index) + (withValues ? sizeof(double) : 0)), std::size_t(8) << 20);
    m_sizing->thread = std::thread([s, threads, faulters] {
        const parallel::ThreadCount count(threads);
        s->run(faulters);
    });
}

EarlyCoordinateArrays::~EarlyCoordinateArrays() {
    if (m_sizing && m_sizing->thread.joinable()) m_sizing->thread.join();
}

EarlyCoordinateArrays::EarlyCoordinateArrays(EarlyCoordinateArrays&&) noexcept = default;

EarlyCoordinateArrays& EarlyCoordinateArrays::operator=(EarlyCoordinateArrays&& other) noexcept {
    if (this != &other) {
        if (m_sizing && m_sizing->thread.joinable()) m_sizing->thread.join();
        m_sizing = std::move(other.m_sizing);
    }
    return *this;
}

bool EarlyCoordinateArrays::sizingFor(std::size_t entries, bool withValues) const {
    return m_sizing && m_sizing->entries == entries && m_sizing->withValues == withValues;
}

Index* EarlyCoordinateArrays::rows() const { return m_sizing ? m_sizing->rows.data() : nullptr; }
Index* EarlyCoordinateArrays::cols() const { return m_sizing ? m_sizing->cols.data() : nullptr; }
double* EarlyCoordinateArrays::values() const { return m_sizing ? m_sizing->values.data() : nullptr; }

void EarlyCoordinateArrays::waitSized(std::size_t n) const {
    if (!m_sizing) return;
    // Asleep, not yielding: every decoding thread waits here while the sizing threads work, and a
    // yielding one is still runnable, taking its turn on the cores the sizing needs.
    while (m_sizing->sized() < n) std::this_thread::sleep_for(std::chrono::microseconds(20));
}

CoordinateArrays EarlyCoordinateArrays::take() {
    if (!m_sizing) return {};
    if (m_sizing->thread.joinable()) m_sizing->thread.join();
    timings::report("read.early", m_sizing->seconds);
    CoordinateArrays arrays = std::move(m_sizing->arrays);
    m_sizing.reset();
    return arrays;
}

namespace {

// Bytes of section `id` (0 when absent).
std::uint64_t sectionBytes(const Container& c, std::uint32_t id) {
    const ContainerSection* s = c.find(id);
    return s ? s->bytes().size() : 0;
}

// What the framing says the Matrix will hold, bounded by what the file stores: every entry is a slot
// (1, 4 or 8 bytes) or a remainder column (4 bytes) of a segmented-DIA file, a residual column of a
// hybrid. So the arrays sized early take at most 16 bytes of memory per 4 bytes of file (8 per byte
// for a pattern's one-byte slots): within what a hostile file may cost (docs/reliability.md).
struct Declared {
    std::uint64_t entries = 0;
    bool withValues = false;
};

// A segmented-DIA summary's nonzeros, a hybrid CSR fallback's residual entries (binary or valued; a
// hybrid with regions decodes through a CSR of its own: nothing is sized for it).
std::optional<Declared> declaredEntries(const Container& c) {
    using container_io::get;
    if (c.encoding == ContainerEncoding::SegmentedDia) {
        const ContainerSection* summary = c.find(container::kSegdiaSummary);
        if (!summary || summary->bytes().size() < 32) return std::nullopt;
        const auto valueType = get<std::uint32_t>(summary->bytes(), 0);
        const auto nonzeros = get<std::int64_t>(summary->bytes(), 24);
        const std::uint64_t slotWidth = valueType == std::uint32_t(container::ValueType::Binary8)   ? 1
                                        : valueType == std::uint32_t(container::ValueType::Float32) ? 4
                                        : valueType == std::uint32_t(container::ValueType::Float64) ? 8
                                                                                                    : 0;
        if (slotWidth == 0 || nonzeros < 0) return std::nullopt;
        const std::uint64_t stored = sectionBytes(c, container::kSegdiaValues) / slotWidth +
                                     sectionBytes(c, container::kSegdiaRemainderColumns) / sizeof(Index);
        if (static_cast<std::uint64_t>(nonzeros) > stored) return std::nullopt;
        return Declared{static_cast<std::uint64_t>(nonzeros), valueType != std::uint32_t(container::ValueType::Binary8)};
    }
    if (c.encoding == ContainerEncoding::HybridBinary) {
        const ContainerSection* summary = c.find(container::kHybridSummary);
        if (!summary || summary->bytes().size() < 4 || (get<std::uint32_t>(summary->bytes(), 0) & container::kHybridFallback) == 0)
            return std::nullopt;
        return Declared{sectionBytes(c, container::kHybridResidualCols) / sizeof(Index), isValuedHybridContainer(c)};
    }
    return std::nullopt;
}

} // namespace

EarlyCoordinateArrays startSizingFromFraming(std::string_view bytes, Count maxEntries) {
    try {
        const std::optional<Container> framed = container_io::peekContainerInPlace(bytes);
        if (!framed) return {};
        const std::optional<Declared> declared = declaredEntries(*framed);
        if (!declared || declared->entries == 0 || declared->entries > static_cast<std::uint64_t>(maxEntries)) return {};
        // Sizing beside the checks pays where cores are left over for it: on two, a segmented-DIA
        // decode took as long as when sizing after them (and slowed the checksum). A hybrid CSR
        // fallback sized early also takes the fused pass (copy, row fill and column check at once,
        // container_residual_copy.h) instead of three, which pays on two: the 120^3 pattern's read
        // fell from 0.10-0.12 s to 0.06-0.08 s on the 2-core VM.
        const std::size_t fewestThreads = framed->encoding == ContainerEncoding::HybridBinary ? 2 : 4;
        if (parallel::threadCount() < fewestThreads) return {};
        requireHostMemory(declared->entries * 32, "sizing a reopened container's arrays");
        return EarlyCoordinateArrays(static_cast<std::size_t>(declared->entries), declared->withValues);
    } catch (...) {  // no memory, no thread: the decoder sizes the arrays itself, and reports what fails
        return {};
    }
}

} // namespace spyglass::container_decode
