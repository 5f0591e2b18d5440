// Your own CUDA kernel on a Spyglass export: load a segmented-DIA container (spyglass-cli export FILE
// --format segdia -o FILE.spy) with the header-only reader, upload its arrays as they are, run y = A x
// with a simple kernel (one thread per row: the diagonals of its segment, then its CSR remainder), and
// compare with a CPU SpMV over the decoded entries. Needs nothing of Spyglass but
// include-standalone/spyglass_container.hpp:
//
//     nvcc -std=c++17 -O2 -I include-standalone examples/segdia_spmv_example.cu -o segdia_spmv_example
//     ./segdia_spmv_example olm1000.spy
//
// Exit status: 0 when every result agrees, 1 when one differs, 2 when a file cannot be read (or is
// not segmented DIA), 77 when there is no CUDA device.
#include "spyglass_container.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

#define CHECK_CUDA(call)                                                                                         \
    do {                                                                                                         \
        const cudaError_t status_ = (call);                                                                      \
        if (status_ != cudaSuccess) throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(status_)); \
    } while (0)

// A device copy of a host vector, freed with the object.
template <typename T>
class DeviceArray {
public:
    explicit DeviceArray(const std::vector<T>& host) : size_(host.size()) {
        CHECK_CUDA(cudaMalloc(&data_, std::max<std::size_t>(1, size_) * sizeof(T)));
        if (size_) CHECK_CUDA(cudaMemcpy(data_, host.data(), size_ * sizeof(T), cudaMemcpyHostToDevice));
    }
    explicit DeviceArray(std::size_t size) : size_(size) {
        CHECK_CUDA(cudaMalloc(&data_, std::max<std::size_t>(1, size_) * sizeof(T)));
    }
    ~DeviceArray() { cudaFree(data_); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    T* get() const { return data_; }
    std::vector<T> download() const {
        std::vector<T> host(size_);
        if (size_) CHECK_CUDA(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }

private:
    T* data_ = nullptr;
    std::size_t size_;
};

// The arrays of the container, as the file names them (docs/container-format.md, "Segmented DIA").
struct SegdiaView {
    int rows, cols, threshold;
    const int* segmentRowStarts;
    const long long* offsetStarts;
    const int* offsets;
    const double* values;
    const long long* valueStarts;
    const long long* remainderStarts;
    const long long* remainderRowStartAt;
    const int* remainderRowStarts;
    const int* remainderColumns;
    const double* remainderValues;
};

__global__ void segdiaSpmv(SegdiaView m, const double* x, double* y) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m.rows) return;
    const int s = row / m.threshold;  // segments are `threshold` rows each, the last may be shorter
    const int first = m.segmentRowStarts[s], height = m.segmentRowStarts[s + 1] - first, i = row - first;
    double sum = 0.0;
    for (long long d = m.offsetStarts[s]; d < m.offsetStarts[s + 1]; ++d) {
        const long long col = (long long)row + m.offsets[d];
        // Slots whose column lies outside the matrix are padding (0): skip them, do not read x there.
        if (col >= 0 && col < m.cols) sum += m.values[m.valueStarts[s] + (d - m.offsetStarts[s]) * height + i] * x[col];
    }
    if (m.remainderStarts[s + 1] > m.remainderStarts[s]) {
        const int* rowStart = m.remainderRowStarts + m.remainderRowStartAt[s];
        for (int k = rowStart[i]; k < rowStart[i + 1]; ++k) {
            const long long at = m.remainderStarts[s] + k;
            sum += m.remainderValues[at] * x[m.remainderColumns[at]];
        }
    }
    y[row] = sum;
}

template <typename T>
std::vector<long long> widened(const std::vector<T>& v) {
    return std::vector<long long>(v.begin(), v.end());
}

// 0: agrees, 1: differs.
int runOne(const std::string& path) {
    const spyglass_container::Container c = spyglass_container::load(path);
    if (c.encoding != spyglass_container::Encoding::SegmentedDia) {
        std::fprintf(stderr, "%s: not a segmented-DIA container (spyglass-cli export --format segdia)\n", path.c_str());
        return 2;
    }
    const spyglass_container::SegmentedDia& m = c.segdia;
    std::vector<double> x(static_cast<std::size_t>(c.cols));
    for (std::size_t j = 0; j < x.size(); ++j) x[j] = double(int(j % 7) - 3) + 0.5;

    // CPU reference over the decoded entries, and the scale of each row's terms for the tolerance.
    const spyglass_container::Coo coo = spyglass_container::toCoo(c);
    std::vector<double> expected(static_cast<std::size_t>(c.rows), 0.0), scale(expected.size(), 0.0);
    for (std::size_t k = 0; k < coo.values.size(); ++k) {
        expected[coo.rowIndex[k]] += coo.values[k] * x[coo.colIndex[k]];
        scale[coo.rowIndex[k]] += std::fabs(coo.values[k] * x[coo.colIndex[k]]);
    }

    const DeviceArray<int> rowStarts(m.segmentRowStarts), offsets(m.offsets), remainderRowStarts(m.remainderRowStarts),
        remainderColumns(m.remainderColumns);
    const DeviceArray<long long> offsetStarts(widened(m.offsetStarts)), valueStarts(widened(m.valueStarts)),
        remainderStarts(widened(m.remainderStarts)), remainderRowStartAt(widened(m.remainderRowStartAt));
    const DeviceArray<double> values(m.values), remainderValues(m.remainderValues), dx(x);
    DeviceArray<double> dy(static_cast<std::size_t>(c.rows));
    const SegdiaView view{int(c.rows), int(c.cols), m.threshold, rowStarts.get(), offsetStarts.get(), offsets.get(), values.get(),
                          valueStarts.get(), remainderStarts.get(), remainderRowStartAt.get(), remainderRowStarts.get(),
                          remainderColumns.get(), remainderValues.get()};
    if (c.rows > 0) {
        const int threads = 256, blocks = int((c.rows + threads - 1) / threads);
        segdiaSpmv<<<blocks, threads>>>(view, dx.get(), dy.get());
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaDeviceSynchronize());
    }
    const std::vector<double> y = dy.download();

    // Only the order of the additions differs: a few ulps of each row's absolute sum.
    double worst = 0.0;
    std::size_t bad = 0, firstBad = 0;
    for (std::size_t r = 0; r < y.size(); ++r) {
        const double diff = std::fabs(y[r] - expected[r]), tolerance = 8 * 2.220446049250313e-16 * scale[r];
        worst = std::max(worst, diff);
        if (!(diff <= tolerance)) {
            if (bad++ == 0) firstBad = r;
        }
    }
    std::printf("%s: %lld x %lld, %zu entries, %u segments, %zu diagonals, %zu remainder entries (%s values): ", path.c_str(),
                static_cast<long long>(c.rows), static_cast<long long>(c.cols), coo.values.size(), m.segments, m.offsets.size(),
                m.remainderColumns.size(),
                m.valueType == spyglass_container::ValueType::Float32 ? "f32"
                : m.valueType == spyglass_container::ValueType::Binary8 ? "u8" : "f64");
    if (bad) {
        std::printf("GPU SpMV DIFFERS from the CPU in %zu rows (first: row %zu, GPU %.17g, CPU %.17g)\n", bad, firstBad, y[firstBad],
                    expected[firstBad]);
        return 1;
    }
    std::printf("GPU SpMV agrees with the CPU (largest difference %.3g)\n", worst);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE.spy... (segmented-DIA exports: spyglass-cli export M.mtx --format segdia -o FILE.spy)\n", argv[0]);
        return 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "no CUDA device: nothing to run\n");
        return 77;
    }
    int status = 0;
    for (int a = 1; a < argc; ++a) {
        try {
            status = std::max(status, runOne(argv[a]));
        } catch (const std::exception& error) {
            std::fprintf(stderr, "%s\n", error.what());
            return 2;
        }
    }
    return status;
}
