// Writing .npz (the layout scipy.sparse.save_npz writes for csr) and dense .npy (see spyglass/npz.h).
#include "io/zip_archive.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/npz.h"

#include <complex>
#include <cstring>
#include <limits>

namespace spyglass {

namespace {

void le(std::string& s, std::uint64_t v, int width) {
    for (int i = 0; i < width; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// A version 1.0 .npy: the header dict padded with blanks so that the data starts 64-byte aligned.
std::string npy(const std::string& descr, const std::string& shape, std::string_view data) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0) header.push_back(' ');
    header.push_back('\n');
    std::string out("\x93NUMPY\x01\x00", 8);
    le(out, header.size(), 2);
    out += header;
    out.append(data.data(), data.size());
    return out;
}

template <typename T> std::string_view bytesOf(const std::vector<T>& v) {
    return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)};
}

std::string oneDimension(std::size_t n) { return "(" + std::to_string(n) + ",)"; }

template <typename T>
std::string csrNpz(const CsrMatrix<T>& csr, const std::string& descr) {
    std::vector<std::pair<std::string, std::string>> members;
    const bool wide = csr.nnz() > std::numeric_limits<std::int32_t>::max();
    if (wide) {
        const std::vector<std::int64_t> indices(csr.colIndex.begin(), csr.colIndex.end());
        members.push_back({"indices.npy", npy("<i8", oneDimension(indices.size()), bytesOf(indices))});
        members.push_back({"indptr.npy", npy("<i8", oneDimension(csr.rowPtr.size()), bytesOf(csr.rowPtr))});
    } else {
        const std::vector<std::int32_t> indptr(csr.rowPtr.begin(), csr.rowPtr.end());
        members.push_back({"indices.npy", npy("<i4", oneDimension(csr.colIndex.size()), bytesOf(csr.colIndex))});
        members.push_back({"indptr.npy", npy("<i4", oneDimension(indptr.size()), bytesOf(indptr))});
    }
    members.push_back({"format.npy", npy("|S3", "()", "csr")});
    const std::vector<std::int64_t> shape{csr.rows, csr.cols};
    members.push_back({"shape.npy", npy("<i8", "(2,)", bytesOf(shape))});
    members.push_back({"data.npy", npy(descr, oneDimension(csr.values.size()), bytesOf(csr.values))});
    return zip::storeMembers(members, ".npz writing");
}

} // namespace

std::string serializeNpz(const Matrix& matrix) {
    // The full matrix (mirrors written out), duplicates summed, columns sorted: a canonical csr.
    const Matrix full = matrix.symmetry == Symmetry::General ? matrix : expandSymmetry(matrix);
    switch (full.field) {
    case Field::Complex: return csrNpz(toCsr<std::complex<double>>(full), "<c16");
    case Field::Integer: return csrNpz(toCsr<std::int64_t>(full), "<i8");
    case Field::Pattern: return csrNpz(toCsr<std::uint8_t>(full), "|b1");
    case Field::Real:
    case Field::Double: break;
    }
    return csrNpz(toCsr<double>(full), "<f8");
}

std::string serializeNpy(const Matrix& matrix) {
    if (Count(matrix.rows) * matrix.cols > (Count(1) << 28))
        throw InputError(".npy writing: a dense " + std::to_string(matrix.rows) + " x " + std::to_string(matrix.cols) +
                         " array is too large; write .npz (sparse) instead");
    const std::string shape = "(" + std::to_string(matrix.rows) + ", " + std::to_string(matrix.cols) + ")";
    auto rowMajor = [&](const auto& dense) {
        using T = typename std::decay_t<decltype(dense.values)>::value_type;
        std::vector<T> c(dense.values.size());
        for (Index i = 0; i < dense.rows; ++i)
            for (Index j = 0; j < dense.cols; ++j) c[std::size_t(i) * dense.cols + j] = dense(i, j);
        return c;
    };
    if (matrix.isComplex()) return npy("<c16", shape, bytesOf(rowMajor(toDense<std::complex<double>>(matrix))));
    return npy("<f8", shape, bytesOf(rowMajor(toDense<double>(matrix))));
}

} // namespace spyglass
