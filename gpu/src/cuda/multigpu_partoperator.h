#pragma once
// One partition's multiply on its device: y (its rows) = A_p x (full length). A CSR partition whose
// rows also read other ranks' entries of x can be held as two parts split by column, its own columns
// and the rest, so that the own part runs while the exchange of the others' entries is in flight.
#include "spyglass/cuda/hybrid_device_api.h"
#include "spyglass/cuda/segdia_device_api.h"
#include "spyglass/multigpu.h"

#include <memory>
#include <utility>

namespace spyglass::multigpu_detail {

// The entries of a with columns in [begin, end) and the others, as two matrices of a's shape (each
// row's entries keep their order).
template <typename T>
std::pair<CsrMatrix<T>, CsrMatrix<T>> splitByColumns(const CsrMatrix<T>& a, Index begin, Index end) {
    std::pair<CsrMatrix<T>, CsrMatrix<T>> parts;
    for (CsrMatrix<T>* m : {&parts.first, &parts.second}) {
        m->rows = a.rows;
        m->cols = a.cols;
        m->rowPtr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
    }
    for (Index i = 0; i < a.rows; ++i) {
        for (Count k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k) {
            const Index c = a.colIndex[static_cast<std::size_t>(k)];
            CsrMatrix<T>& m = c >= begin && c < end ? parts.first : parts.second;
            m.colIndex.push_back(c);
            m.values.push_back(a.values[static_cast<std::size_t>(k)]);
        }
        parts.first.rowPtr[static_cast<std::size_t>(i) + 1] = parts.first.nnz();
        parts.second.rowPtr[static_cast<std::size_t>(i) + 1] = parts.second.nnz();
    }
    return parts;
}

template <typename T>
class PartOperator {
public:
    // x and y are bound once (a segmented-DIA part binds neither: y may be null for its fused step).
    // splitOwnColumns: hold a CSR part as own columns [rowBegin, rowEnd) and the rest when both are
    // non-empty (overlaps() then says so).
    PartOperator(const PartitionedMatrix<T>& matrix, int p, const T* x, T* y, cudaStream_t stream, bool splitOwnColumns)
        : m_format(matrix.plan.format), m_x(x), m_y(y) {
        const std::size_t part = static_cast<std::size_t>(p);
        switch (m_format) {
        case PartitionFormat::Csr: {
            const RowPartition& rows = matrix.plan.parts[part];
            if (splitOwnColumns) {
                auto [own, other] = splitByColumns(matrix.csr[part], rows.rowBegin, rows.rowEnd);
                if (own.nnz() > 0 && other.nnz() > 0) {
                    m_own = std::make_unique<cuda::CusparseCsrSpmv<T>>(own, x, y, stream);
                    m_other = std::make_unique<cuda::CusparseCsrSpmv<T>>(other, x, y, stream);
                    break;
                }
            }
            m_csr = std::make_unique<cuda::CusparseCsrSpmv<T>>(matrix.csr[part], x, y, stream);
            break;
        }
        case PartitionFormat::SegmentedDia:
            m_segdia = std::make_unique<cuda::DeviceSegmentedDia<T>>(matrix.segmentedDia[part], stream);
            break;
        case PartitionFormat::Hybrid:
            m_hybrid = std::make_unique<cuda::HybridDeviceMatrix>();
            m_hybrid->upload(matrix.hybrid[part], stream);
            break;
        }
    }

    // Split by column: multiplyOwn reads only the rank's own share of x, multiplyOthers (added to y)
    // the rest, after the exchange.
    bool overlaps() const { return m_own != nullptr; }
    void multiplyOwn(cudaStream_t stream) { m_own->multiply(stream); }
    void multiplyOthers(cudaStream_t stream) { m_other->multiply(stream, true); }

    // Fused power-iteration steps (multigpu_rank.h: PowerStep): segmented DIA without a remainder only.
    int powerStepBlocks() const { return m_segdia ? static_cast<int>(m_segdia->blocks()) : 0; }
    void powerStep(const T* x, const T* xOwn, T* y, const double* scale, double* blockDots, cudaStream_t stream) {
        m_segdia->powerStep(x, xOwn, y, scale, blockDots, stream);
    }

    void multiply(cudaStream_t stream) {
        if (overlaps()) {
            multiplyOwn(stream);
            multiplyOthers(stream);
            return;
        }
        switch (m_format) {
        case PartitionFormat::Csr: m_csr->multiply(stream); break;
        case PartitionFormat::SegmentedDia: m_segdia->multiply(m_x, m_y, stream); break;
        case PartitionFormat::Hybrid: m_hybrid->multiply<T>(m_x, m_y, stream); break;
        }
    }

private:
    PartitionFormat m_format;
    const T* m_x;
    T* m_y;
    std::unique_ptr<cuda::CusparseCsrSpmv<T>> m_csr, m_own, m_other;
    std::unique_ptr<cuda::DeviceSegmentedDia<T>> m_segdia;
    std::unique_ptr<cuda::HybridDeviceMatrix> m_hybrid;
};

} // namespace spyglass::multigpu_detail
