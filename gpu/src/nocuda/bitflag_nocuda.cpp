// Built without CUDA: method A's GPU backends report that they are missing; the reference still works.
// Bad input has been named by the dispatch already, as in the CUDA build.
#include "core/bitflag_device.h"
#include "core/instantiate.h"
#include "nocuda/backend_unavailable.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass::bitflag_device {

namespace {
[[noreturn]] void unavailable(const char* what, const BitFlagRunOptions& options) {
    nocuda::backendUnavailable(what, toString(options.backend), " backend");
}
} // namespace

template <typename T>
std::vector<T> getBatch(const BitFlagMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&, const BitFlagRunOptions& options) {
    unavailable("bit-flag batch get", options);
}
template <typename T>
BitFlagMatrix<T> setBatch(const BitFlagMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&, const std::vector<T>&,
                          const BitFlagRunOptions& options) {
    unavailable("bit-flag batch set", options);
}
template <typename T>
BitFlagMatrix<T> addOrSubtract(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&, T sign, const BitFlagRunOptions& options) {
    unavailable(sign > T(0) ? "bit-flag add" : "bit-flag subtract", options);
}
template <typename T>
BitFlagMatrix<T> multiply(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&, const BitFlagRunOptions& options) {
    unavailable("bit-flag multiply", options);
}
template <typename T> BitFlagLu<T> lu(const BitFlagMatrix<T>&, const BitFlagRunOptions& options) {
    unavailable("bit-flag LU", options);
}
template <typename T> BitFlagPivotedLu<T> luPivoted(const BitFlagMatrix<T>&, const BitFlagRunOptions& options) {
    unavailable("bit-flag LU with partial pivoting", options);
}
template <typename T> BitFlagPivotedLu<T> luPivotedVendor(const BitFlagMatrix<T>&, const BitFlagRunOptions& options) {
    unavailable("cuSOLVER getrf", options);
}
template <typename T>
std::vector<BitFlagLu<T>> luBatched(const std::vector<BitFlagMatrix<T>>&, const BitFlagRunOptions& options) {
    unavailable("bit-flag batched LU", options);
}
template <typename T>
std::vector<BitFlagPivotedLu<T>> luPivotedBatched(const std::vector<BitFlagMatrix<T>>&, const BitFlagRunOptions& options) {
    unavailable("bit-flag batched LU with partial pivoting", options);
}
// No kernels, so no order fits them.
template <typename T> Index luMaxOrder(BitFlagLuForm, const BitFlagRunOptions&) { return 0; }
template <typename T> std::vector<T> spmv(const BitFlagMatrix<T>&, const std::vector<T>&, const BitFlagRunOptions& options) {
    unavailable("bit-flag SpMV", options);
}
template <typename T>
std::vector<T> csrGetBatch(const CsrMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&, const BitFlagRunOptions& options) {
    unavailable("CSR batch get", options);
}
CsrMatrix<float> csrAddVendor(const CsrMatrix<float>&, const CsrMatrix<float>&, float, const BitFlagRunOptions& options) {
    unavailable("cuSPARSE add", options);
}
CsrMatrix<float> csrMultiplyVendor(const CsrMatrix<float>&, const CsrMatrix<float>&, const BitFlagRunOptions& options) {
    unavailable("cuSPARSE multiply", options);
}

#define SPYGLASS_BITFLAG_NOCUDA(T)                                                                                      \
    template std::vector<T> getBatch(const BitFlagMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&,      \
                                     const BitFlagRunOptions&);                                                         \
    template BitFlagMatrix<T> setBatch(const BitFlagMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&,   \
                                       const std::vector<T>&, const BitFlagRunOptions&);                                \
    template BitFlagMatrix<T> addOrSubtract(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&, T, const BitFlagRunOptions&); \
    template BitFlagMatrix<T> multiply(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&, const BitFlagRunOptions&);     \
    template BitFlagLu<T> lu(const BitFlagMatrix<T>&, const BitFlagRunOptions&);                                        \
    template BitFlagPivotedLu<T> luPivoted(const BitFlagMatrix<T>&, const BitFlagRunOptions&);                          \
    template BitFlagPivotedLu<T> luPivotedVendor(const BitFlagMatrix<T>&, const BitFlagRunOptions&);                    \
    template std::vector<BitFlagLu<T>> luBatched(const std::vector<BitFlagMatrix<T>>&, const BitFlagRunOptions&);        \
    template std::vector<BitFlagPivotedLu<T>> luPivotedBatched(const std::vector<BitFlagMatrix<T>>&, const BitFlagRunOptions&); \
    template Index luMaxOrder<T>(BitFlagLuForm, const BitFlagRunOptions&);                                              \
    template std::vector<T> spmv(const BitFlagMatrix<T>&, const std::vector<T>&, const BitFlagRunOptions&);             \
    template std::vector<T> csrGetBatch(const CsrMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&,      \
                                        const BitFlagRunOptions&);
SPYGLASS_FOR_EACH_REAL(SPYGLASS_BITFLAG_NOCUDA)

} // namespace spyglass::bitflag_device
