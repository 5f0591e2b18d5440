// Without CUDA the bit-flag SpMV kernel reports the missing backend; the reference still works.
#include "spyglass/bitflagspmv.h"
#include "spyglass/error.h"

namespace spyglass {

template <typename T> std::vector<T> bitFlagSpmvCuda(const BitFlagMatrix<T>&, const std::vector<T>&) {
    throw BackendUnavailableError("bit-flag SpMV on CUDA: this build has no CUDA backend");
}

template std::vector<float> bitFlagSpmvCuda(const BitFlagMatrix<float>&, const std::vector<float>&);
template std::vector<double> bitFlagSpmvCuda(const BitFlagMatrix<double>&, const std::vector<double>&);

} // namespace spyglass
