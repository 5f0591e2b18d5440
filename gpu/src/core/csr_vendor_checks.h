#pragma once
// Shape checks of the cuSPARSE add/multiply wrappers (bitflag.h), shared by the CUDA build and the
// CUDA-less stubs so that a mismatched shape is an InputError in every build, before any device
// question is asked (the public API validates before dispatch).
#include "spyglass/error.h"
#include "spyglass/matrix.h"

#include <string>

namespace spyglass::vendor_checks {

inline std::string shapeOf(const CsrMatrix<float>& m) { return std::to_string(m.rows) + " x " + std::to_string(m.cols); }

inline void requireSameShape(const CsrMatrix<float>& a, const CsrMatrix<float>& b) {
    if (a.rows != b.rows || a.cols != b.cols)
        throw InputError("cuSPARSE add: A is " + shapeOf(a) + " but B is " + shapeOf(b));
}

inline void requireMultipliable(const CsrMatrix<float>& a, const CsrMatrix<float>& b) {
    if (a.cols != b.rows)
        throw InputError("cuSPARSE multiply: A is " + shapeOf(a) + " and B is " + shapeOf(b) +
                         "; A's columns must equal B's rows");
}

} // namespace spyglass::vendor_checks
