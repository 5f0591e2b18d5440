// Without CUDA the bit-flag SpMV kernel reports the missing backend; the reference still works.
#include "spyglass/bitflag_spmv.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass {

template <typename T> std::vector<T> bitFlagSpmvCuda(const BitFlagMatrix<T>& a, const std::vector<T>& x) {
    // Bad input is named first, as in the CUDA build, whatever the backend.
    if (x.size() != static_cast<std::size_t>(a.cols))
        throw InputError("bit-flag SpMV on CUDA: x has " + std::to_string(x.size()) + " entries but the matrix has " +
                         std::to_string(a.cols) + " columns");
    throw BackendUnavailableError("bit-flag SpMV on CUDA: this build has no CUDA backend");
}

template std::vector<float> bitFlagSpmvCuda(const BitFlagMatrix<float>&, const std::vector<float>&);
template std::vector<double> bitFlagSpmvCuda(const BitFlagMatrix<double>&, const std::vector<double>&);

} // namespace spyglass
