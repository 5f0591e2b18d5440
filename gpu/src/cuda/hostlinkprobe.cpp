#include "cuda/hostlinkprobe.h"

#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>

namespace spyglass::cuda {

namespace {
// Large enough that a copy runs at the link's rate, small enough that the probe stays short; the
// small size gives the fixed cost by the difference (an affine fit of two points).
constexpr std::size_t kLargeBytes = std::size_t(32) << 20;
constexpr std::size_t kSmallBytes = std::size_t(2) << 20;
constexpr int kRepeats = 5;

struct GpuSide {
    DeviceBuffer<unsigned char> in, out;
    cudaStream_t up = nullptr, down = nullptr;
    cudaEvent_t begin = nullptr, upDone = nullptr, downDone = nullptr;
};

// Page-locked host memory for the probe: one upload source shared by the GPUs (portable), one
// download target per GPU.
class ProbeHost {
public:
    explicit ProbeHost(std::size_t bytes) { SPYGLASS_CUDA_CHECK(cudaHostAlloc(&m_data, bytes, cudaHostAllocPortable)); }
    ~ProbeHost() { cudaFreeHost(m_data); }
    ProbeHost(const ProbeHost&) = delete;
    ProbeHost& operator=(const ProbeHost&) = delete;
    unsigned char* data() { return static_cast<unsigned char*>(m_data); }

private:
    void* m_data = nullptr;
};

HostLinkProbe measure(const std::vector<int>& devices) {
    const auto start = std::chrono::steady_clock::now();
    int previous = 0;
    SPYGLASS_CUDA_CHECK(cudaGetDevice(&previous));
    const std::size_t gpus = devices.size();
    ProbeHost host((gpus + 1) * kLargeBytes);
    std::vector<GpuSide> sides(gpus);
    struct Cleanup {
        std::vector<GpuSide>& sides;
        const std::vector<int>& devices;
        int previous;
        ~Cleanup() {
            for (std::size_t g = 0; g < sides.size(); ++g) {
                cudaSetDevice(devices[g]);
                if (sides[g].up) cudaStreamDestroy(sides[g].up);
                if (sides[g].down) cudaStreamDestroy(sides[g].down);
                for (cudaEvent_t e : {sides[g].begin, sides[g].upDone, sides[g].downDone})
                    if (e) cudaEventDestroy(e);
                sides[g].in.release();
                sides[g].out.release();
            }
            cudaSetDevice(previous);
        }
    } cleanup{sides, devices, previous};
    for (std::size_t g = 0; g < gpus; ++g) {
        SPYGLASS_CUDA_CHECK(cudaSetDevice(devices[g]));
        sides[g].in.resize(kLargeBytes);
        sides[g].out.resize(kLargeBytes);
        SPYGLASS_CUDA_CHECK(cudaStreamCreateWithFlags(&sides[g].up, cudaStreamNonBlocking));
        SPYGLASS_CUDA_CHECK(cudaStreamCreateWithFlags(&sides[g].down, cudaStreamNonBlocking));
        for (cudaEvent_t* e : {&sides[g].begin, &sides[g].upDone, &sides[g].downDone}) SPYGLASS_CUDA_CHECK(cudaEventCreate(e));
    }
    // The first k GPUs copy `bytes` each way at once; the median of kRepeats after one warm-up. Timed
    // by CUDA events on each GPU (both directions start at its `begin`), the slowest GPU's span: the
    // host's launch and synchronisation costs stay out of the copy model (a host clock put them into
    // the small copy, where they read as link overhead).
    auto round = [&](std::size_t k, std::size_t bytes) {
        std::vector<double> ms;
        for (int r = 0; r <= kRepeats; ++r) {
            for (std::size_t g = 0; g < k; ++g) {
                GpuSide& s = sides[g];
                SPYGLASS_CUDA_CHECK(cudaSetDevice(devices[g]));
                SPYGLASS_CUDA_CHECK(cudaEventRecord(s.begin, s.up));
                SPYGLASS_CUDA_CHECK(cudaStreamWaitEvent(s.down, s.begin, 0));
                SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(s.in.data(), host.data(), bytes, cudaMemcpyHostToDevice, s.up));
                SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(host.data() + (g + 1) * kLargeBytes, s.out.data(), bytes, cudaMemcpyDeviceToHost, s.down));
                SPYGLASS_CUDA_CHECK(cudaEventRecord(s.upDone, s.up));
                SPYGLASS_CUDA_CHECK(cudaEventRecord(s.downDone, s.down));
            }
            double slowest = 0;
            for (std::size_t g = 0; g < k; ++g) {
                GpuSide& s = sides[g];
                SPYGLASS_CUDA_CHECK(cudaEventSynchronize(s.upDone));
                SPYGLASS_CUDA_CHECK(cudaEventSynchronize(s.downDone));
                float up = 0, down = 0;
                SPYGLASS_CUDA_CHECK(cudaEventElapsedTime(&up, s.begin, s.upDone));
                SPYGLASS_CUDA_CHECK(cudaEventElapsedTime(&down, s.begin, s.downDone));
                slowest = std::max(slowest, double(std::max(up, down)));
            }
            if (r > 0) ms.push_back(slowest);
        }
        std::sort(ms.begin(), ms.end());
        return ms[ms.size() / 2];
    };
    HostLinkProbe probe;
    const double small = round(1, kSmallBytes), large = round(1, kLargeBytes);
    // Bytes per millisecond in one direction (both run): the slope between the two sizes.
    const double slope = large > small ? double(kLargeBytes - kSmallBytes) / (large - small) : double(kLargeBytes) / large;
    probe.chunk.gbPerSecond = slope / 1e6;
    probe.chunk.overheadMs = std::max(0.0, small - double(kSmallBytes) / slope);
    probe.gbsByGpus.push_back(2.0 * double(kLargeBytes) / (large * 1e6));
    for (std::size_t k = 2; k <= gpus; ++k) probe.gbsByGpus.push_back(double(k) * 2.0 * double(kLargeBytes) / (round(k, kLargeBytes) * 1e6));
    for (int d : devices) probe.numaNodes.push_back(gpuNumaNode(d));
    probe.probeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return probe;
}
} // namespace

int gpuNumaNode(int device) {
    char busId[32] = {};
    if (cudaDeviceGetPCIBusId(busId, sizeof busId, device) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    std::string id(busId);
    std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    // sysfs names the device with a 4-digit domain; CUDA may print 8.
    if (id.size() > 12) id = id.substr(id.size() - 12);
    std::ifstream file("/sys/bus/pci/devices/" + id + "/numa_node");
    int node = -1;
    if (!(file >> node)) return -1;
    return node;
}

HostLinkProbe probeHostLink(const std::vector<int>& devices) {
    static std::mutex mutex;
    static std::map<std::vector<int>, HostLinkProbe> cache;
    std::lock_guard<std::mutex> lock(mutex);  // one probe at a time: two at once would measure each other
    const auto it = cache.find(devices);
    if (it != cache.end()) {
        HostLinkProbe cached = it->second;
        cached.probeMs = 0;
        return cached;
    }
    HostLinkProbe probe = measure(devices);
    cache.emplace(devices, probe);
    return probe;
}

} // namespace spyglass::cuda
