// Method A batch set on the device: all or nothing, last of repeated (i,j) wins, as the CPU
// reference (bitFlagSetBatch). Two passes, one thread per query:
//   resolve: the query's slot in M (flag bit, popcount); a clear flag records the smallest such
//            query index (atomicMin), a set one elects the largest query index per slot (atomicMax
//            on slot's winner), which is "the last one wins" of the sequential order;
//   write:   runs only when no flag was clear (the host checks in between), each elected query
//            stores its value.
// Threads of one slot therefore never race on M, and the result does not depend on scheduling.
#include "core/bitflag_device.h"
#include "bitflag_access.cuh"
#include "spyglass/cuda/bitflag_device_api.h"
#include "bitflag_run_support.h"

#include <algorithm>
#include <limits>

namespace spyglass {

namespace {

constexpr int kBlock = 256;
using Winner = unsigned long long;  // query index + 1; 0: no query wrote this slot
constexpr Winner kNoneMissing = std::numeric_limits<Winner>::max();

template <typename T>
__global__ void resolveSetKernel(cuda::BitFlagView<T> m, bool rowMajor, bool usePrefix, const Index* rowsQ, const Index* colsQ,
                                 Count queries, Count* slots, Winner* winner, Winner* firstMissing) {
    const Count q = Count(blockIdx.x) * blockDim.x + threadIdx.x;
    if (q >= queries) return;
    const Count slot = cuda::slotOf(m, rowMajor, usePrefix, rowsQ[q], colsQ[q]);
    slots[q] = slot;
    if (slot < 0) atomicMin(firstMissing, Winner(q));
    else atomicMax(winner + slot, Winner(q) + 1);
}

template <typename T>
__global__ void writeSetKernel(T* values, const Count* slots, const Winner* winner, const T* newValues, Count queries) {
    const Count q = Count(blockIdx.x) * blockDim.x + threadIdx.x;
    if (q >= queries) return;
    const Count slot = slots[q];
    if (winner[slot] == Winner(q) + 1) values[slot] = newValues[q];
}

unsigned blocksFor(Count work) { return unsigned(std::max<Count>(1, (work + kBlock - 1) / kBlock)); }

} // namespace

template <typename T>
BitFlagMatrix<T> bitflag_device::setBatch(const BitFlagMatrix<T>& m, const std::vector<Index>& rowsQ,
                                          const std::vector<Index>& colsQ, const std::vector<T>& values,
                                          const BitFlagRunOptions& options) {
    const std::string what = "bit-flag batch set on CUDA";
    cuda::requireDevice(what);
    if (rowsQ.empty()) return m;
    const cudaStream_t stream = cuda::streamOf(options);

    const Count queries = Count(rowsQ.size());
    cuda::DeviceBitFlag<T> dm(m, stream);
    cuda::DeviceBuffer<Index> dr, dc;
    cuda::DeviceBuffer<T> dv;
    dr.upload(rowsQ, stream);
    dc.upload(colsQ, stream);
    dv.upload(values, stream);
    cuda::DeviceBuffer<Count> slots(rowsQ.size());
    cuda::DeviceBuffer<Winner> winner(std::max<std::size_t>(std::size_t(m.nonzeros), 1)), firstMissing(1);
    SPYGLASS_CUDA_CHECK(cudaMemsetAsync(winner.data(), 0, winner.size() * sizeof(Winner), stream));
    SPYGLASS_CUDA_CHECK(cudaMemsetAsync(firstMissing.data(), 0xff, sizeof(Winner), stream));
    resolveSetKernel<<<blocksFor(queries), kBlock, 0, stream>>>(dm.view(), m.order == BitFlagOrder::RowMajor, m.withPrefixCounts, dr.data(),
                                                     dc.data(), queries, slots.data(), winner.data(), firstMissing.data());
    SPYGLASS_CUDA_CHECK_LAUNCH();
    Winner missing = 0;
    firstMissing.download(&missing, 1, stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (missing != kNoneMissing) {
        const std::size_t q = std::size_t(missing);
        throw InputError(what + ": query " + std::to_string(q) + ": (" + std::to_string(rowsQ[q]) + ", " +
                         std::to_string(colsQ[q]) + ") has no flag; the format only writes where a nonzero is stored");
    }
    writeSetKernel<<<blocksFor(queries), kBlock, 0, stream>>>(dm.m_values.data(), slots.data(), winner.data(), dv.data(), queries);
    SPYGLASS_CUDA_CHECK_LAUNCH();
    BitFlagMatrix<T> result = m;
    dm.m_values.download(result.values.data(), result.values.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return result;
}

template BitFlagMatrix<float> bitflag_device::setBatch(const BitFlagMatrix<float>&, const std::vector<Index>&,
                                                       const std::vector<Index>&, const std::vector<float>&,
                                                       const BitFlagRunOptions&);
template BitFlagMatrix<double> bitflag_device::setBatch(const BitFlagMatrix<double>&, const std::vector<Index>&,
                                                        const std::vector<Index>&, const std::vector<double>&,
                                                        const BitFlagRunOptions&);

} // namespace spyglass
