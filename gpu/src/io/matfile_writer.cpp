// Writing a matrix as one sparse variable of a compressed version 5 .mat file (see spyglass/matfile.h).
// matio writes only to a path, so it writes a scratch file beside the target; its bytes then go
// through writeFileAtomically like every other output, and the scratch file is removed.
#include "io/matio_access.h"
#include "spyglass/atomicfile.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matfile.h"

#include <matio.h>
#include <unistd.h>

#include <cerrno>
#include <complex>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

namespace spyglass {

namespace {

bool isMatlabName(const std::string& name) {
    if (name.empty() || name.size() > 63 || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
    for (char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
}

// The scratch file matio writes; removed on every path out.
class ScratchFile {
public:
    explicit ScratchFile(const std::string& target) {
        std::vector<char> pattern(target.begin(), target.end());
        const std::string suffix = ".matio-XXXXXX";
        pattern.insert(pattern.end(), suffix.begin(), suffix.end());
        pattern.push_back('\0');
        const int fd = ::mkstemp(pattern.data());
        if (fd < 0) throw Error("cannot write " + target + ": creating a scratch file failed: " + std::strerror(errno));
        ::close(fd);
        m_path = pattern.data();
    }
    ~ScratchFile() { ::unlink(m_path.c_str()); }
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

// MATLAB's compressed columns of the full matrix: the csr of the transpose is the csc of the matrix.
template <typename T> CsrMatrix<T> compressedColumns(const Matrix& full) {
    Matrix transposed = full;
    std::swap(transposed.rows, transposed.cols);
    std::swap(transposed.rowIndex, transposed.colIndex);
    return toCsr<T>(transposed);
}

template <typename T> void checkSize(const CsrMatrix<T>& csc, const std::string& path) {
    if (csc.nnz() > Count(std::numeric_limits<mat_uint32_t>::max()))
        throw InputError(path + ": " + std::to_string(csc.nnz()) + " entries are more than a .mat sparse variable written by matio holds (2^32 - 1)");
}

void writeVariable(mat_t* file, const std::string& name, const Matrix& full, const std::string& path) {
    size_t dims[2] = {size_t(full.rows), size_t(full.cols)};
    auto write = [&](auto& csc, matio_types type, void* data, int flags) {
        checkSize(csc, path);
        std::vector<mat_uint32_t> ir(csc.colIndex.begin(), csc.colIndex.end()), jc(csc.rowPtr.begin(), csc.rowPtr.end());
        mat_sparse_t sparse{};
        sparse.nzmax = mat_uint32_t(csc.nnz());
        sparse.ir = ir.data();
        sparse.nir = mat_uint32_t(ir.size());
        sparse.jc = jc.data();
        sparse.njc = mat_uint32_t(jc.size());
        sparse.ndata = mat_uint32_t(csc.nnz());
        sparse.data = data;
        // MAT_F_DONT_COPY_DATA: the variable points into our arrays, which outlive it.
        matvar_t* variable = Mat_VarCreate(name.c_str(), MAT_C_SPARSE, type, 2, dims, &sparse, flags | MAT_F_DONT_COPY_DATA);
        if (variable == nullptr) throw Error("cannot write " + path + ": matio cannot create the variable");
        const int status = Mat_VarWrite(file, variable, MAT_COMPRESSION_ZLIB);
        Mat_VarFree(variable);
        if (status != 0) throw Error("cannot write " + path + ": matio failed writing the variable");
    };
    if (full.isComplex()) {
        CsrMatrix<std::complex<double>> csc = compressedColumns<std::complex<double>>(full);
        std::vector<double> re(csc.values.size()), im(csc.values.size());
        for (std::size_t k = 0; k < csc.values.size(); ++k) re[k] = csc.values[k].real(), im[k] = csc.values[k].imag();
        mat_complex_split_t split{re.data(), im.data()};
        write(csc, MAT_T_DOUBLE, &split, MAT_F_COMPLEX);
    } else if (full.isPattern()) {
        CsrMatrix<std::uint8_t> csc = compressedColumns<std::uint8_t>(full);
        write(csc, MAT_T_UINT8, csc.values.data(), MAT_F_LOGICAL);
    } else {
        // Integer matrices too: MATLAB's sparse arrays are double or logical only.
        CsrMatrix<double> csc = compressedColumns<double>(full);
        write(csc, MAT_T_DOUBLE, csc.values.data(), 0);
    }
}

std::string contentsOf(const std::string& path, const std::string& target) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    if (!in || !(bytes << in.rdbuf())) throw Error("cannot write " + target + ": reading back matio's output failed");
    return bytes.str();
}

} // namespace

void writeMatFile(const std::string& path, const Matrix& matrix, const std::string& variable) {
    if (!isMatlabName(variable))
        throw InputError(path + ": '" + variable + "' is not a MATLAB variable name (a letter, then letters, digits or _, at most 63)");
    const Matrix full = matrix.symmetry == Symmetry::General ? matrix : expandSymmetry(matrix);
    std::string bytes;
    {
        ScratchFile scratch(path);
        matio::Access access;
        mat_t* file = Mat_CreateVer(scratch.path().c_str(), nullptr, MAT_FT_MAT5);
        if (file == nullptr) throw Error("cannot write " + path + ": matio cannot create " + scratch.path());
        try {
            writeVariable(file, variable, full, path);
        } catch (...) {
            Mat_Close(file);
            throw;
        }
        if (Mat_Close(file) != 0) throw Error("cannot write " + path + ": matio failed closing the file");
        bytes = contentsOf(scratch.path(), path);
    }
    writeFileAtomically(path, bytes);
}

} // namespace spyglass
