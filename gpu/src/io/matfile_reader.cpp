// MATLAB .mat files into the file form, through matio (see spyglass/matfile.h). matio hands over each
// variable as it stores it: a dense array column-major in its class's C type (complex as separate
// real and imaginary arrays), a sparse one as MATLAB's compressed columns (jc, ir, data). Everything
// matio returns is checked against the variable's declared size before it is indexed. This runs in
// the sandbox's child process (matfile_sandbox.cpp); the public functions are there.
#include "io/matfile_framing.h"
#include "io/matfile_inprocess.h"
#include "io/matio_access.h"
#include "spyglass/error.h"
#include "spyglass/matfile.h"

#include <matio.h>
#include <sys/stat.h>

#if __has_include(<hdf5.h>)
#include <hdf5.h>
#define SPYGLASS_MATIO_HDF5 1
#endif

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <tuple>

namespace spyglass {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw InputError(where + ": " + what); }

void checkCancel(const std::atomic<bool>* cancel) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw CancelledError();
}

struct FileCloser {
    void operator()(mat_t* file) const { Mat_Close(file); }
};
// matio reads a function handle's contents into an array of variables (ReadNextFunctionHandle) that
// its Mat_VarFree never frees (its MAT_C_FUNCTION case does nothing): each listed file holding one,
// damaged or not, leaked them (the fuzzer's finding, fixture fuzz_function_handle_leak.mat). This
// frees them first, at any depth of cells and structs, and clears the pointer, so a matio that does
// free them finds nothing left to free twice.
void releaseFunctionHandles(matvar_t* variable) {
    if (variable == nullptr || variable->data == nullptr || variable->data_size != sizeof(matvar_t*)) return;
    const bool function = variable->class_type == MAT_C_FUNCTION;
    if (!function && variable->class_type != MAT_C_CELL && variable->class_type != MAT_C_STRUCT) return;
    auto** nested = static_cast<matvar_t**>(variable->data);
    for (std::size_t k = 0; k < variable->nbytes / sizeof(matvar_t*); ++k) {
        releaseFunctionHandles(nested[k]);
        if (function) Mat_VarFree(nested[k]);
    }
    if (function) {
        std::free(variable->data);
        variable->data = nullptr;
        variable->nbytes = 0;
    }
}

struct VariableFreer {
    void operator()(matvar_t* variable) const {
        releaseFunctionHandles(variable);
        Mat_VarFree(variable);
    }
};
using MatFile = std::unique_ptr<mat_t, FileCloser>;
using MatVar = std::unique_ptr<matvar_t, VariableFreer>;

const char* className(const matvar_t& v) {
    if (v.isLogical) return "logical";
    switch (v.class_type) {
    case MAT_C_EMPTY: return "empty";
    case MAT_C_CELL: return "cell";
    case MAT_C_STRUCT: return "struct";
    case MAT_C_OBJECT: return "object";
    case MAT_C_CHAR: return "char";
    case MAT_C_SPARSE: return v.data_type == MAT_T_UINT8 ? "logical" : "double";
    case MAT_C_DOUBLE: return "double";
    case MAT_C_SINGLE: return "single";
    case MAT_C_INT8: return "int8";
    case MAT_C_UINT8: return "uint8";
    case MAT_C_INT16: return "int16";
    case MAT_C_UINT16: return "uint16";
    case MAT_C_INT32: return "int32";
    case MAT_C_UINT32: return "uint32";
    case MAT_C_INT64: return "int64";
    case MAT_C_UINT64: return "uint64";
    case MAT_C_FUNCTION: return "function handle";
    case MAT_C_OPAQUE: return "opaque object";
    }
    return "unknown";
}

bool isNumericClass(matio_classes c) { return c >= MAT_C_DOUBLE && c <= MAT_C_UINT64; }
bool isMatrixVariable(const matvar_t& v) { return v.class_type == MAT_C_SPARSE || isNumericClass(v.class_type); }

// A 2-D shape (trailing dimensions of 1 allowed) within Index, else nullopt.
std::optional<std::pair<Index, Index>> shapeOf(const matvar_t& v) {
    if (v.rank < 1 || v.dims == nullptr) return std::nullopt;
    for (int d = 2; d < v.rank; ++d)
        if (v.dims[d] != 1) return std::nullopt;
    const std::size_t rows = v.dims[0], cols = v.rank > 1 ? v.dims[1] : 1;
    const std::size_t limit = std::size_t(std::numeric_limits<Index>::max());
    if (rows > limit || cols > limit) return std::nullopt;
    return std::make_pair(Index(rows), Index(cols));
}

std::string describeShape(const matvar_t& v) {
    std::string s;
    for (int d = 0; d < v.rank && v.dims; ++d) s += (d ? " x " : "") + std::to_string(v.dims[d]);
    return s.empty() ? "no shape" : s;
}

MatFile openMatFile(const std::string& path, const matio::Access& access) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) throw Error("cannot open " + path + ": " + std::strerror(errno));
    if (!S_ISREG(info.st_mode)) fail(path, "not a regular file");
    {
        // matio falls back to version 4, which has no header and reads any bytes as a matrix (sizes
        // and all): only a file that says it is version 5 or 7.3 goes to matio.
        std::ifstream in(path, std::ios::binary);
        char head[20] = {};
        in.read(head, sizeof head);
        if (!looksLikeMatFile(std::string_view(head, std::size_t(in.gcount()))))
            fail(path, "not a MATLAB version 5 or 7.3 .mat file (no \"MATLAB 5.0 MAT-file\" or \"MATLAB 7.3 MAT-file\" header)");
    }
    if (matfile::checkHeader(path) == 5) matfile::checkVersion5Framing(path, std::uint64_t(info.st_size));
    MatFile file(Mat_Open(path.c_str(), MAT_ACC_RDONLY));
    if (!file) {
        const std::string why = access.lastMessage();
        fail(path, "not a readable MATLAB .mat file" + (why.empty() ? std::string() : " (" + why + ")"));
    }
    const mat_ft version = Mat_GetVersion(file.get());
    if (version != MAT_FT_MAT5 && version != MAT_FT_MAT73) fail(path, "not a readable MATLAB version 5 or 7.3 .mat file");
    return file;
}

// Each variable's header (no data), in file order.
std::vector<MatVar> variableInfos(mat_t* file, const std::string& path) {
    std::vector<MatVar> infos;
    if (Mat_Rewind(file) != 0) fail(path, "cannot rewind the .mat file");
    // A damaged file can make matio step in place; the count of variables a file can hold bounds it.
    for (int guard = 0; guard < 1000000; ++guard) {
        MatVar v(Mat_VarReadNextInfo(file));
        if (!v) break;
        if (v->name == nullptr || v->name[0] == '\0') continue;  // a nameless variable cannot be chosen
        infos.push_back(std::move(v));
    }
    return infos;
}

// The struct's field when `v` is a 1 x 1 struct holding a matrix under that name, else nullptr.
matvar_t* structField(matvar_t& v, const char* field) {
    if (v.class_type != MAT_C_STRUCT || Mat_VarGetNumberOfFields(&v) == 0 || Mat_VarGetSize(&v) == 0) return nullptr;
    matvar_t* f = Mat_VarGetStructFieldByName(&v, field, 0);
    return f != nullptr && isMatrixVariable(*f) ? f : nullptr;
}

MatVariable describe(const matvar_t& v, const std::string& name) {
    MatVariable d;
    d.name = name;
    d.matlabClass = className(v);
    if (const auto shape = shapeOf(v)) std::tie(d.rows, d.cols) = *shape;
    d.sparse = v.class_type == MAT_C_SPARSE;
    d.complex = v.isComplex != 0;
    return d;
}

std::vector<MatVariable> listIn(mat_t* file, const std::string& path) {
    std::vector<MatVariable> list;
    for (const MatVar& info : variableInfos(file, path)) {
        if (isMatrixVariable(*info)) list.push_back(describe(*info, info->name));
        else if (std::strcmp(info->name, "Problem") == 0) {
            // The collection's layout; a struct's header carries its fields' headers.
            if (matvar_t* a = structField(*info, "A")) list.push_back(describe(*a, "Problem.A"));
        }
    }
    return list;
}

std::string namesOf(const std::vector<MatVariable>& list) {
    std::string names;
    for (const MatVariable& v : list) names += (names.empty() ? "" : ", ") + v.name;
    return names;
}

void checkEntries(Count entries, Count maxEntries, const std::string& where) {
    if (maxEntries > 0 && entries > maxEntries)
        fail(where, std::to_string(entries) + " entries are more than the limit of " + std::to_string(maxEntries));
}

// The element k of matio's array of this data type, as a double.
double valueAt(const void* data, matio_types type, std::size_t k) {
    switch (type) {
    case MAT_T_DOUBLE: return static_cast<const double*>(data)[k];
    case MAT_T_SINGLE: return static_cast<const float*>(data)[k];
    case MAT_T_INT8: return static_cast<const std::int8_t*>(data)[k];
    case MAT_T_UINT8: return static_cast<const std::uint8_t*>(data)[k];
    case MAT_T_INT16: return static_cast<const std::int16_t*>(data)[k];
    case MAT_T_UINT16: return static_cast<const std::uint16_t*>(data)[k];
    case MAT_T_INT32: return static_cast<const std::int32_t*>(data)[k];
    case MAT_T_UINT32: return static_cast<const std::uint32_t*>(data)[k];
    case MAT_T_INT64: return double(static_cast<const std::int64_t*>(data)[k]);
    case MAT_T_UINT64: return double(static_cast<const std::uint64_t*>(data)[k]);
    default: break;
    }
    return 0;
}

std::size_t elementSize(matio_types type) {
    switch (type) {
    case MAT_T_DOUBLE:
    case MAT_T_INT64:
    case MAT_T_UINT64: return 8;
    case MAT_T_SINGLE:
    case MAT_T_INT32:
    case MAT_T_UINT32: return 4;
    case MAT_T_INT16:
    case MAT_T_UINT16: return 2;
    case MAT_T_INT8:
    case MAT_T_UINT8: return 1;
    default: break;
    }
    return 0;
}

// The real and imaginary arrays of matio's data (imag nullptr when real).
std::pair<const void*, const void*> parts(const void* data, bool complex) {
    if (!complex) return {data, nullptr};
    const auto* split = static_cast<const mat_complex_split_t*>(data);
    return {split->Re, split->Im};
}

Matrix denseMatrix(const matvar_t& v, Index rows, Index cols, const std::string& where) {
    const std::size_t n = std::size_t(rows) * std::size_t(cols);
    const std::size_t width = elementSize(v.data_type);
    if (width == 0) fail(where, "matio gave an unknown data type " + std::to_string(int(v.data_type)));
    // matio's nbytes is the size of the real part alone; it must cover the declared shape.
    if (n > 0 && (v.data == nullptr || v.nbytes / width < n)) fail(where, "the data is shorter than the " + describeShape(v) + " shape");
    const auto [re, im] = parts(v.data, v.isComplex != 0);
    if (n > 0 && (re == nullptr || (v.isComplex && im == nullptr))) fail(where, "the data is missing");
    Matrix m;
    m.layout = Layout::Array;
    m.rows = rows;
    m.cols = cols;
    m.field = v.isComplex ? Field::Complex : (v.class_type == MAT_C_DOUBLE || v.class_type == MAT_C_SINGLE) && !v.isLogical ? Field::Real : Field::Integer;
    m.rowIndex.reserve(n);
    m.colIndex.reserve(n);
    m.real.reserve(n);
    if (v.isComplex) m.imag.reserve(n);
    for (Index j = 0; j < cols; ++j)
        for (Index i = 0; i < rows; ++i) {
            const std::size_t k = std::size_t(j) * std::size_t(rows) + std::size_t(i);
            m.rowIndex.push_back(i);
            m.colIndex.push_back(j);
            m.real.push_back(valueAt(re, v.data_type, k));
            if (v.isComplex) m.imag.push_back(valueAt(im, v.data_type, k));
        }
    return m;
}

Matrix sparseMatrix(const matvar_t& v, Index rows, Index cols, Count maxEntries, const std::string& where) {
    const auto* s = static_cast<const mat_sparse_t*>(v.data);
    if (s == nullptr) fail(where, "the sparse data is missing");
    if (s->jc == nullptr || s->njc != std::uint64_t(cols) + 1)
        fail(where, "jc has " + std::to_string(s->njc) + " entries, " + std::to_string(cols) + " columns need " + std::to_string(std::uint64_t(cols) + 1));
    const std::uint64_t nnz = s->jc[cols];
    if (nnz > s->nir || nnz > s->ndata || (nnz > 0 && (s->ir == nullptr || s->data == nullptr)))
        fail(where, "jc counts " + std::to_string(nnz) + " entries, ir has " + std::to_string(s->nir) + " and data " + std::to_string(s->ndata));
    checkEntries(Count(nnz), maxEntries, where);
    const bool logical = v.isLogical || v.data_type == MAT_T_UINT8;
    const matio_types type = logical ? MAT_T_UINT8 : v.data_type;
    if (elementSize(type) == 0) fail(where, "matio gave an unknown sparse data type " + std::to_string(int(v.data_type)));
    const auto [re, im] = parts(s->data, v.isComplex != 0);
    if (nnz > 0 && (re == nullptr || (v.isComplex && im == nullptr))) fail(where, "the sparse values are missing");

    bool allTrue = logical && !v.isComplex;
    for (std::uint64_t k = 0; allTrue && k < nnz; ++k) allTrue = valueAt(re, type, k) != 0;
    Matrix m;
    m.rows = rows;
    m.cols = cols;
    m.field = v.isComplex ? Field::Complex : allTrue ? Field::Pattern : logical ? Field::Integer : Field::Real;
    m.rowIndex.reserve(nnz);
    m.colIndex.reserve(nnz);
    if (!m.isPattern()) m.real.reserve(nnz);
    if (m.isComplex()) m.imag.reserve(nnz);
    for (Index j = 0; j < cols; ++j) {
        const std::uint64_t begin = s->jc[j], end = s->jc[j + 1];
        if (begin > end || end > nnz) fail(where, "jc[" + std::to_string(j + 1) + "] = " + std::to_string(end) + " is out of order or past the entries");
        for (std::uint64_t k = begin; k < end; ++k) {
            if (s->ir[k] >= std::uint64_t(rows))
                fail(where, "ir[" + std::to_string(k) + "] = " + std::to_string(s->ir[k]) + " is outside the " + std::to_string(rows) + " rows");
            m.rowIndex.push_back(Index(s->ir[k]));
            m.colIndex.push_back(j);
            if (m.isPattern()) continue;
            m.real.push_back(valueAt(re, type, k));
            if (m.isComplex()) m.imag.push_back(valueAt(im, type, k));
        }
    }
    return m;
}

Matrix matrixOf(const matvar_t& v, Count maxEntries, const std::string& where) {
    if (!isMatrixVariable(v)) fail(where, "a " + std::string(className(v)) + " variable is not a matrix");
    const auto shape = shapeOf(v);
    if (!shape) fail(where, "a " + describeShape(v) + " array is not a 2-D matrix Spyglass reads");
    const auto [rows, cols] = *shape;
    if (v.class_type == MAT_C_SPARSE) return sparseMatrix(v, rows, cols, maxEntries, where);
    checkEntries(Count(rows) * Count(cols), maxEntries, where);
    return denseMatrix(v, rows, cols, where);
}

// The declared entries of a variable from its header alone, -1 when the header does not tell.
// A 7.3 sparse variable's stored entries: the larger of its ir and data datasets' sizes, read from the
// HDF5 metadata without reading the data (-1 when HDF5 does not tell). h5path is "/name" or
// "/struct/field".
Count hdf5SparseEntries(const std::string& path, const std::string& h5path) {
#ifdef SPYGLASS_MATIO_HDF5
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) return -1;
    Count entries = -1;
    for (const char* member : {"/ir", "/data"}) {
        const std::string name = h5path + member;
        if (H5Lexists(file, name.c_str(), H5P_DEFAULT) <= 0) continue;
        const hid_t dataset = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
        if (dataset < 0) continue;
        const hid_t space = H5Dget_space(dataset);
        if (space >= 0) {
            entries = std::max<Count>(entries, Count(H5Sget_simple_extent_npoints(space)));
            H5Sclose(space);
        }
        H5Dclose(dataset);
    }
    H5Fclose(file);
    return entries;
#else
    (void)path;
    (void)h5path;
    return -1;
#endif
}

Count declaredEntries(const matvar_t& info, const std::string& path, const std::string& h5path) {
    const auto shape = shapeOf(info);
    if (!shape) return -1;
    if (info.class_type != MAT_C_SPARSE) return Count(shape->first) * Count(shape->second);
    // A version 5 header carries nzmax (matio puts it in nbytes); a 7.3 one leaves it 0, and the
    // datasets' sizes tell instead.
    return info.nbytes > 0 ? Count(info.nbytes) : hdf5SparseEntries(path, h5path);
}

} // namespace

bool looksLikeMatFile(std::string_view head) {
    return head.rfind("MATLAB 5.0 MAT-file", 0) == 0 || head.rfind("MATLAB 7.3 MAT-file", 0) == 0;
}

std::optional<MatFilePath> splitMatFilePath(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) == 0) return std::nullopt;  // the whole path is a file (or folder)
    const auto colon = path.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == path.size()) return std::nullopt;
    MatFilePath split{path.substr(0, colon), path.substr(colon + 1)};
    if (split.variable.find('/') != std::string::npos) return std::nullopt;
    if (::stat(split.file.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(split.file.c_str(), "rb"), &std::fclose);
    if (!file) return std::nullopt;
    char head[20] = {};
    const std::size_t got = std::fread(head, 1, sizeof head, file.get());
    if (!looksLikeMatFile(std::string_view(head, got))) return std::nullopt;
    return split;
}

namespace matfile {

std::vector<MatVariable> listVariablesInProcess(const std::string& path) {
    matio::Access access;
    MatFile file = openMatFile(path, access);
    return listIn(file.get(), path);
}

Matrix readInProcess(const std::string& path, const std::string& variable, Count maxEntries, const std::atomic<bool>* cancel) {
    checkCancel(cancel);
    matio::Access access;
    MatFile file = openMatFile(path, access);
    std::string name = variable;
    if (name.empty()) {
        const std::vector<MatVariable> list = listIn(file.get(), path);
        if (list.size() == 1) name = list.front().name;
        else if (const auto problem = std::find_if(list.begin(), list.end(), [](const MatVariable& v) { return v.name == "Problem.A"; });
                 problem != list.end())
            name = problem->name;
        else if (list.empty()) fail(path, "the file holds no matrix variable (Spyglass reads numeric, logical and sparse arrays)");
        else fail(path, "the file holds " + std::to_string(list.size()) + " matrix variables (" + namesOf(list) + "); name one as " + path + ":NAME");
    }
    // "Struct.field": the field of a 1 x 1 struct.
    const auto dot = name.find('.');
    const std::string top = name.substr(0, dot), field = dot == std::string::npos ? std::string() : name.substr(dot + 1);
    const std::string where = path + ": variable " + name;

    MatVar info(Mat_VarReadInfo(file.get(), top.c_str()));
    if (!info) {
        std::string names;
        for (const MatVar& v : variableInfos(file.get(), path)) names += (names.empty() ? "" : ", ") + std::string(v->name);
        fail(path, "no variable '" + top + "' (the file holds: " + (names.empty() ? "nothing readable" : names) + ")");
    }
    const matvar_t* header = info.get();
    if (!field.empty()) {
        if (info->class_type != MAT_C_STRUCT)
            fail(path, "variable '" + top + "' is a " + className(*info) + ", not a struct with field '" + field + "'");
        if (Mat_VarGetSize(info.get()) == 0 || Mat_VarGetNumberOfFields(info.get()) == 0) fail(where, "the struct is empty");
        header = Mat_VarGetStructFieldByName(info.get(), field.c_str(), 0);
        if (header == nullptr) fail(path, "struct '" + top + "' has no field '" + field + "'");
    }
    if (!isMatrixVariable(*header)) fail(where, "a " + std::string(className(*header)) + " variable is not a matrix");
    const Count declared = declaredEntries(*header, path, "/" + top + (field.empty() ? "" : "/" + field));
    if (declared >= 0) checkEntries(declared, maxEntries, where);
    info.reset();
    checkCancel(cancel);

    MatVar whole(Mat_VarRead(file.get(), top.c_str()));
    if (!whole) {
        const std::string why = access.lastMessage();
        fail(where, "matio cannot read it" + (why.empty() ? std::string() : " (" + why + ")"));
    }
    const matvar_t* chosen = whole.get();
    if (!field.empty()) {
        if (Mat_VarGetSize(whole.get()) == 0 || Mat_VarGetNumberOfFields(whole.get()) == 0) fail(where, "the struct is empty");
        chosen = Mat_VarGetStructFieldByName(whole.get(), field.c_str(), 0);
        if (chosen == nullptr) fail(path, "struct '" + top + "' has no field '" + field + "'");
    }
    Matrix matrix = matrixOf(*chosen, maxEntries, where);
    checkCancel(cancel);
    return matrix;
}

} // namespace matfile

} // namespace spyglass
