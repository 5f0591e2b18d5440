#include "io/container_early_arrays.h"

#include "core/hugepages.h"
#include "core/parallel_ranges.h"
#include "io/container_io.h"

#include "spyglass/container.h"
#include "spyglass/hostmemory.h"

#include <exception>
#include <optional>
#include <thread>

namespace spyglass::container_decode {

struct EarlyCoordinateArrays::Sizing {
    CoordinateArrays arrays;
    std::thread thread;
};

namespace {

// Reserves the arrays, populates their pages on every thread (slices of each array), then value-
// initialises each on its own thread: the std::vector fill is the part no number of threads splits,
// and with the pages already there it runs at memory speed instead of fault speed.
void sizeArrays(CoordinateArrays& a, std::size_t entries, bool withValues) {
    a.rows.reserve(entries);
    a.cols.reserve(entries);
    if (withValues) a.values.reserve(entries);
    memory::adviseHugePages(a.rows);
    memory::adviseHugePages(a.cols);
    memory::adviseHugePages(a.values);
    const std::size_t bytes = entries * (2 * sizeof(Index) + (withValues ? sizeof(double) : 0));
    const std::size_t threads = parallel::threadsFor(bytes, std::size_t(8) << 20);
    parallel::onThreads(threads, [&](std::size_t t) {
        const auto slice = [&](const auto& array) {
            const std::size_t first = array.capacity() * t / threads, last = array.capacity() * (t + 1) / threads;
            if (last > first) memory::populateForWriting(array.data() + first, (last - first) * sizeof(*array.data()));
        };
        slice(a.rows);
        slice(a.cols);
        if (withValues) slice(a.values);
    });
    parallel::onThreads(withValues ? 3 : 2, [&](std::size_t t) {
        if (t == 0) a.rows.resize(entries);
        else if (t == 1) a.cols.resize(entries);
        else a.values.resize(entries);
    });
}

// Bytes of section `id` (0 when absent).
std::uint64_t sectionBytes(const Container& c, std::uint32_t id) {
    const ContainerSection* s = c.find(id);
    return s ? s->bytes().size() : 0;
}

// What the framing says the Matrix will hold, bounded by what the file stores: every entry is a slot
// (1, 4 or 8 bytes) or a remainder column (4 bytes) of a segmented-DIA file, a residual column of a
// valued hybrid. So the arrays sized early take at most 16 bytes of memory per 4 bytes of file (8 per
// byte for a pattern's one-byte slots): within what a hostile file may cost (docs/reliability.md).
struct Declared {
    std::uint64_t entries = 0;
    bool withValues = false;
};

// A segmented-DIA summary's nonzeros, a valued CSR fallback's residual entries (a hybrid with regions
// decodes through a CSR of its own: nothing is sized for it).
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
    if (isValuedHybridContainer(c)) {
        const ContainerSection* summary = c.find(container::kHybridSummary);
        if ((get<std::uint32_t>(summary->bytes(), 0) & container::kHybridFallback) == 0) return std::nullopt;
        return Declared{sectionBytes(c, container::kHybridResidualCols) / sizeof(Index), true};
    }
    return std::nullopt;
}

} // namespace

EarlyCoordinateArrays::EarlyCoordinateArrays() = default;

EarlyCoordinateArrays::EarlyCoordinateArrays(std::size_t entries, bool withValues) : m_sizing(std::make_unique<Sizing>()) {
    Sizing* s = m_sizing.get();
    const std::size_t threads = parallel::threadCount();  // the caller's --threads reaches the sizing threads
    m_sizing->thread = std::thread([s, entries, withValues, threads] {
        const parallel::ThreadCount count(threads);
        try {
            sizeArrays(s->arrays, entries, withValues);
        } catch (...) {  // std::bad_alloc: the decoder's own sizing reports it, after the checks
            s->arrays = CoordinateArrays{};
        }
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

CoordinateArrays EarlyCoordinateArrays::take() {
    if (!m_sizing) return {};
    if (m_sizing->thread.joinable()) m_sizing->thread.join();
    CoordinateArrays arrays = std::move(m_sizing->arrays);
    m_sizing.reset();
    return arrays;
}

EarlyCoordinateArrays startSizingFromFraming(std::string_view bytes, Count maxEntries) {
    try {
        const std::optional<Container> framed = container_io::peekContainerInPlace(bytes);
        if (!framed) return {};
        const std::optional<Declared> declared = declaredEntries(*framed);
        if (!declared || declared->entries == 0 || declared->entries > static_cast<std::uint64_t>(maxEntries)) return {};
        requireHostMemory(declared->entries * 32, "sizing a reopened container's arrays");
        return EarlyCoordinateArrays(static_cast<std::size_t>(declared->entries), declared->withValues);
    } catch (...) {  // no memory, no thread: the decoder sizes the arrays itself, and reports what fails
        return {};
    }
}

} // namespace spyglass::container_decode
