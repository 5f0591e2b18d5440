#pragma once
// Slots (a chunk's device buffers and events, cuda/batchedsvd_streaming.h) kept from one streamed run
// to the next on each GPU. Making and freeing them is host work inside every run's time: cudaMalloc
// and cudaFree of a few buffers a slot cost 1-2 ms on one GPU and 10-16 ms a run on four at once
// (the driver serialises them; "slot buffers made in ... ms" in bench/results/multigpu*.md), against
// 4-8 ms for a whole streamed inverse of 10^6 8x8 matrices. A process that streams batch after batch
// (the benchmark, the GUI's repeats, a service) pays them once per shape instead.
//
// One shape per GPU and slot type is kept (at most kStreamSlots slots): a run of another shape frees
// the kept slots before making its own, so the pool never holds memory that a run of the new shape
// could need, and an allocation that would be refused (the cap, or the GPU full) first frees every
// kept slot (registerKeptMemoryRelease) and tries again. Under a memory cap (spyglass/devicememory.h:
// a smaller GPU simulated) nothing is kept or reused, so that every run allocates, and is refused, as
// it would be on that GPU.
#include "spyglass/backend.h"
#include "spyglass/cuda/devicebuffer.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace spyglass::cuda {

template <typename Slot>
class StreamSlotPool {
public:
    // Made on first use, which comes after the CUDA runtime started (a stream exists by then), so the
    // exit handler registered here runs before the runtime's own teardown and can still free the
    // kept slots (a static destructor could run after it, when every CUDA call fails); the pool
    // object itself is never destroyed. Freeing at exit keeps compute-sanitizer's leak check clean.
    static StreamSlotPool& instance() {
        static StreamSlotPool* pool = [] {
            auto* made = new StreamSlotPool;
            std::atexit([] { instance().releaseAll(); });
            registerKeptMemoryRelease([] { instance().releaseAll(); });  // before an allocation is refused
            return made;
        }();
        return *pool;
    }

    void releaseAll() {
        std::map<int, Kept> kept;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            kept.swap(m_kept);
        }
    }

    // A kept slot of this shape on this GPU, or null. Slots of another shape kept there are freed
    // (the caller has `device` current).
    std::unique_ptr<Slot> take(int device, const std::string& shape) {
        std::vector<std::unique_ptr<Slot>> stale;
        std::unique_ptr<Slot> slot;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            Kept& kept = m_kept[device];
            if (kept.shape != shape || deviceMemoryCap() != 0) {
                stale.swap(kept.slots);
                kept.shape = shape;
            } else if (!kept.slots.empty()) {
                slot = std::move(kept.slots.back());
                kept.slots.pop_back();
            }
        }
        return slot;  // `stale` is freed here, outside the lock
    }

    // Keeps a slot whose streams are done (at most `limit` of one shape a GPU; the rest are freed).
    void give(int device, const std::string& shape, std::unique_ptr<Slot> slot, std::size_t limit) {
        std::lock_guard<std::mutex> lock(m_mutex);
        Kept& kept = m_kept[device];
        if (kept.shape == shape && kept.slots.size() < limit && deviceMemoryCap() == 0) kept.slots.push_back(std::move(slot));
    }

private:
    struct Kept {
        std::string shape;
        std::vector<std::unique_ptr<Slot>> slots;
    };
    std::mutex m_mutex;
    std::map<int, Kept> m_kept;
};

} // namespace spyglass::cuda
