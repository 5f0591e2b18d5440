#pragma once
// A batch of independent small problems over several GPUs (docs/scale.md): each GPU takes one
// contiguous share and streams it through kStreamSlots buffer sets ("slots"), each on its own
// stream, chunk i in slot i % kStreamSlots, so that one chunk's upload, another's kernel and a third's
// download run at once; the H100 and H200 have a copy engine per direction, so an upload and a
// download are in flight on every GPU. The host arrays are page-locked once (cudaHostRegister,
// portable): the copies go straight from and to the caller's arrays, with no staging copy (so no
// staging buffer to place on a GPU's NUMA node either: docs/scale.md). No communication between
// GPUs: the shares are independent.
#include "spyglass/cuda/cudacheck.h"
#include "cuda/streamslotpool.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace spyglass::cuda {

// Host memory registered with CUDA for the lifetime of the object (a no-op for null or empty ranges).
class PinnedRange {
public:
    PinnedRange(const void* data, std::size_t bytes) {
        if (!data || bytes == 0) return;
        const cudaError_t status = cudaHostRegister(const_cast<void*>(data), bytes, cudaHostRegisterPortable);
        if (status == cudaSuccess) {
            m_data = const_cast<void*>(data);
        } else {
            // Already registered by the caller, or the OS refused to lock it: the copies still work,
            // only without overlap. Clear the error so it does not surface at the next call.
            cudaGetLastError();
        }
    }
    ~PinnedRange() {
        if (m_data) cudaHostUnregister(m_data);
    }
    PinnedRange(const PinnedRange&) = delete;
    PinnedRange& operator=(const PinnedRange&) = delete;
    bool pinned() const { return m_data != nullptr; }

private:
    void* m_data = nullptr;
};

// Three, not two: with two, a slot's next upload waits for its own download, so the upload engine
// idles while the last chunk drains; with three, upload, kernel and download each have a chunk.
// The chunk size comes from a measured copy model (spyglass/streamplan.h, cuda/streamsetup.h).
constexpr int kStreamSlots = 3;

struct StreamedChunk {
    std::int64_t first = 0, count = 0;  // matrices [first, first + count) of the whole batch
};

// Runs the batch [0, count) over `devices`, `chunk` matrices at a time. makeSlot(device, stream)
// allocates one buffer set (called with the device current, once per slot the share uses, unless a
// slot of the same `slotShape` is kept from an earlier run on that GPU: cuda/streamslotpool.h; an
// empty shape keeps none, for slots that hold anything bound to the run's streams); enqueue(slot, chunk,
// stream) issues the chunk's upload, kernels and download without waiting; finish(slot, chunk) runs
// once its stream is done (from the device's thread: it must only write the chunk's own results).
// Cancellation is read before each chunk. The first failure on any GPU is rethrown after every
// thread has stopped.

// Host time the slots' buffers took to make and to free, on the slowest GPU: the part of a streamed
// run that is neither copy nor kernel, reported in the run's note.
struct StreamTimes {
    double slotsMs = 0, releaseMs = 0;
    int slotsMade = 0, slotsKept = 0;  // over all GPUs: made in this run, taken from an earlier one
};

template <typename Slot>
StreamTimes streamBatch(const std::vector<int>& devices, std::int64_t count, std::int64_t chunk,
                 const std::function<std::unique_ptr<Slot>(int device, cudaStream_t stream)>& makeSlot,
                 const std::function<void(Slot&, const StreamedChunk&, cudaStream_t)>& enqueue,
                 const std::function<void(Slot&, const StreamedChunk&)>& finish, const std::atomic<bool>* cancel,
                 const std::string& slotShape = {}) {
    const std::int64_t gpus = static_cast<std::int64_t>(devices.size());
    std::vector<std::exception_ptr> errors(devices.size());
    std::atomic<bool> failed{false};
    StreamTimes times;
    std::mutex timesMutex;
    using Clock = std::chrono::steady_clock;
    auto msSince = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
    auto work = [&](std::size_t g) {
        try {
            SPYGLASS_CUDA_CHECK(cudaSetDevice(devices[g]));
            // The share: equal counts, the first ones one larger when the batch does not divide.
            const std::int64_t base = count / gpus, extra = count % gpus;
            const std::int64_t begin = std::int64_t(g) * base + std::min<std::int64_t>(std::int64_t(g), extra);
            const std::int64_t end = begin + base + (std::int64_t(g) < extra ? 1 : 0);
            if (begin >= end) return;
            cudaStream_t streams[kStreamSlots] = {};
            struct StreamsGuard {
                cudaStream_t* s;
                ~StreamsGuard() {
                    for (int i = 0; i < kStreamSlots; ++i)
                        if (s[i]) cudaStreamDestroy(s[i]);
                }
            } guard{streams};
            std::unique_ptr<Slot> slots[kStreamSlots];
            StreamedChunk pending[kStreamSlots];
            // Every slot before the first chunk: a device or page-locked allocation issued between
            // two streams' commands may keep them from running concurrently (CUDA programming guide,
            // implicit synchronization), so none is made once chunks are in flight.
            const auto slotsStart = Clock::now();
            int made = 0, kept = 0;
            for (int i = 0; i < kStreamSlots; ++i) {
                SPYGLASS_CUDA_CHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
                if (end - begin <= std::int64_t(i) * chunk) continue;  // only the slots the share uses
                if (!slotShape.empty()) slots[i] = StreamSlotPool<Slot>::instance().take(devices[g], slotShape);
                if (slots[i]) {
                    ++kept;
                } else {
                    slots[i] = makeSlot(devices[g], streams[i]);
                    ++made;
                }
            }
            const double slotsMs = msSince(slotsStart);
            int i = 0;
            for (std::int64_t first = begin; first < end; first += chunk, i = (i + 1) % kStreamSlots) {
                if ((cancel && cancel->load()) || failed.load()) break;
                if (pending[i].count) {
                    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(streams[i]));
                    finish(*slots[i], pending[i]);
                }
                pending[i] = StreamedChunk{first, std::min(chunk, end - first)};
                enqueue(*slots[i], pending[i], streams[i]);
            }
            // The rest, oldest first (the slot that would be used next holds the oldest).
            for (int k = 0; k < kStreamSlots; ++k, i = (i + 1) % kStreamSlots)
                if (pending[i].count) {
                    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(streams[i]));
                    finish(*slots[i], pending[i]);
                    pending[i] = {};
                }
            const auto t0 = Clock::now();
            // Every stream is done with its slot: kept for the next run of this shape (a cancelled
            // or failed run frees its slots: they may still be in use by a chunk in flight).
            const bool keep = !slotShape.empty() && !(cancel && cancel->load()) && !failed.load();
            for (auto& slot : slots)
                if (slot && keep) StreamSlotPool<Slot>::instance().give(devices[g], slotShape, std::move(slot), kStreamSlots);
            for (auto& slot : slots) slot.reset();
            const double releaseMs = msSince(t0);
            std::lock_guard<std::mutex> lock(timesMutex);
            times.slotsMs = std::max(times.slotsMs, slotsMs);
            times.releaseMs = std::max(times.releaseMs, releaseMs);
            times.slotsMade += made;
            times.slotsKept += kept;
        } catch (...) {
            errors[g] = std::current_exception();
            failed = true;
        }
    };
    std::vector<std::thread> threads;
    for (std::size_t g = 1; g < devices.size(); ++g) threads.emplace_back(work, g);
    work(0);
    for (auto& t : threads) t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
    if (cancel && cancel->load()) throw CancelledError();
    return times;
}

// The devices named in options, checked against the machine.
inline void checkDevices(const std::vector<int>& devices, const char* what) {
    int available = 0;
    if (cudaGetDeviceCount(&available) != cudaSuccess) {
        cudaGetLastError();
        available = 0;
    }
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (devices[i] < 0 || devices[i] >= available)
            throw InputError(std::string(what) + ": GPU " + std::to_string(devices[i]) + " does not exist (this machine has " +
                             std::to_string(available) + ")");
        for (std::size_t j = i + 1; j < devices.size(); ++j)
            if (devices[i] == devices[j]) throw InputError(std::string(what) + ": GPU " + std::to_string(devices[i]) + " is named twice");
    }
}

// The several-GPU entries run Spyglass's kernels only (`backend`: the one asked for, when not cuda),
// on devices that exist, each named once.
inline void checkStreamedRun(bool cudaBackend, const char* backend, const std::vector<int>& devices, const char* what) {
    if (!cudaBackend) throw InputError(std::string(what) + ": several GPUs (devices) run the cuda backend, not " + backend);
    checkDevices(devices, what);
}

} // namespace spyglass::cuda
