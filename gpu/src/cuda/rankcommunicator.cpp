// One process per GPU: the communicator every rank joins (spyglass/rankcommunicator.h). Rank 0 makes
// the ncclUniqueId, the rendezvous carries it to the others, ncclCommInitRank joins them.
#include "rankcommunicator_native.h"
#include "multigpu_streams.h"
#include "core/multigpu_device.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace spyglass {

namespace {

using multigpu_detail::allGather;

ncclComm_t joinCommunicator(const ProcessGroup& group) {
    const auto& nccl = cuda::nccl();  // loaded before the rendezvous: a rank without NCCL says so at once
    ncclUniqueId id{};
    if (group.rank == 0) SPYGLASS_NCCL_CHECK(nccl.getUniqueId(&id));
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(&id);
    const std::vector<std::uint8_t> shared = exchangeThroughRendezvous(
        group.rendezvous, group.rank, group.worldSize, std::vector<std::uint8_t>(bytes, bytes + sizeof id), group.timeout);
    if (shared.size() != sizeof id)
        throw InputError(group.rendezvous.describe() + ": rank 0 shared " + std::to_string(shared.size()) + " bytes, not an ncclUniqueId (" +
                         std::to_string(sizeof id) + "): is it another program or another NCCL version?");
    std::memcpy(&id, shared.data(), sizeof id);
    ncclComm_t comm = nullptr;
    SPYGLASS_NCCL_CHECK(nccl.commInitRank(&comm, group.worldSize, id, group.rank));
    return comm;
}

} // namespace

RankCommunicator::RankCommunicator(const ProcessGroup& group) : m_native(std::make_unique<Native>()) {
    const std::string name = "rank " + std::to_string(group.rank) + " of " + std::to_string(group.worldSize);
    const DeviceInfo info = cudaDeviceInfo();
    if (!info.present) throw BackendUnavailableError("one process per GPU, " + name + ": " + info.reason);
    const int available = multigpu_detail::deviceCount();
    if (group.device < 0 || group.device >= available)
        throw InputError("one process per GPU, " + name + ": GPU " + std::to_string(group.device) + " does not exist (this process sees " +
                         std::to_string(available) + ")");
    m_native->group = group;
    // The process's current GPU from here on: the single-GPU entries a command calls next run on it.
    multigpu_detail::DeviceGuard guard(group.device);
    SPYGLASS_CUDA_CHECK(cudaStreamCreateWithFlags(&m_native->stream, cudaStreamNonBlocking));
    try {
        m_native->comm = joinCommunicator(group);
    } catch (...) {
        cudaStreamDestroy(m_native->stream);
        throw;
    }
}

RankCommunicator::~RankCommunicator() {
    if (m_native->comm) cuda::nccl().commDestroy(m_native->comm);
    if (m_native->stream) cudaStreamDestroy(m_native->stream);
}

const ProcessGroup& RankCommunicator::group() const { return m_native->group; }

const RankCommunicator::Native& RankCommunicator::native() const { return *m_native; }

std::vector<double> RankCommunicator::allGather(const std::vector<double>& values) const {
    multigpu_detail::DeviceGuard guard(m_native->group.device);
    return multigpu_detail::allGather<double>(values, ncclDouble, m_native->group.worldSize, m_native->comm, m_native->stream);
}

std::vector<double> RankCommunicator::gatherToRoot(const std::vector<double>& values) const {
    const ProcessGroup& group = m_native->group;
    multigpu_detail::DeviceGuard guard(group.device);
    // The counts first, so that rank 0 knows where each rank's values go (NCCL has no gather of
    // differing counts); then one send from each rank, received by rank 0 in place.
    const std::vector<double> counts = allGather({double(values.size())});
    std::vector<std::size_t> offsets(counts.size() + 1, 0);
    for (std::size_t r = 0; r < counts.size(); ++r) offsets[r + 1] = offsets[r] + static_cast<std::size_t>(counts[r]);
    const cudaStream_t stream = m_native->stream;
    const auto& nccl = cuda::nccl();
    cuda::DeviceBuffer<double> buffer;
    if (group.rank == 0) {
        buffer.resize(offsets.back());
        buffer.upload(values, stream);  // rank 0's own values lead
    } else {
        buffer.upload(values, stream);
    }
    SPYGLASS_NCCL_CHECK(nccl.groupStart());
    if (group.rank == 0) {
        for (int r = 1; r < group.worldSize; ++r)
            if (counts[std::size_t(r)] > 0)
                SPYGLASS_NCCL_CHECK(nccl.recv(buffer.data() + offsets[std::size_t(r)], static_cast<std::size_t>(counts[std::size_t(r)]),
                                              ncclDouble, r, m_native->comm, stream));
    } else if (!values.empty()) {
        SPYGLASS_NCCL_CHECK(nccl.send(buffer.data(), values.size(), ncclDouble, 0, m_native->comm, stream));
    }
    SPYGLASS_NCCL_CHECK(nccl.groupEnd());
    std::vector<double> gathered(group.rank == 0 ? offsets.back() : 0);
    buffer.download(gathered.data(), gathered.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return gathered;
}

void RankCommunicator::agree(const std::exception_ptr& error, const char* what) const {
    const std::vector<double> failed = allGather({error ? 1.0 : 0.0});
    if (error) std::rethrow_exception(error);
    std::string names;
    for (std::size_t r = 0; r < failed.size(); ++r)
        if (failed[r] != 0) names += (names.empty() ? "" : ", ") + std::to_string(r);
    if (!names.empty())
        throw DeviceError("rank " + names + " could not " + what + " (its own error says why), so this rank stops too", __FILE__, __LINE__);
}

} // namespace spyglass
