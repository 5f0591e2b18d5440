#pragma once
// The element types the library instantiates its templates for, each list written once: a file
// defines its own SPYGLASS_INSTANTIATE_...(T) and applies it with one of these.
#include <complex>

// Sparse formats and bit-flag storage hold real values.
#define SPYGLASS_FOR_EACH_REAL(X) X(float) X(double)
// The batched methods (SVD, inverse) also run on complex matrices.
#define SPYGLASS_FOR_EACH_SCALAR(X) X(float) X(double) X(std::complex<float>) X(std::complex<double>)
