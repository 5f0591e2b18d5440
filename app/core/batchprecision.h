#pragma once
// The element type of a batch of small matrices: one choice for the batched SVD and the batched
// inverse alike (their tabs, jobs and spyglass-cli's --type), real or complex, single or double.
#include <QString>

#include <complex>
#include <stdexcept>

namespace spyglass::app {

enum class BatchPrecision { F32, F64, C64, C128 };
const char* toString(BatchPrecision precision);  // "f32", "f64", "c64", "c128"
// The precision toString names `text`; F32 for any other text.
BatchPrecision batchPrecisionOf(const QString& text);

// f(T()) with T the precision's element type (float, double, complex<float>, complex<double>): how a
// job runs its typed work.
template <typename F>
decltype(auto) withElementType(BatchPrecision precision, F&& f) {
    switch (precision) {
    case BatchPrecision::F32: return f(float());
    case BatchPrecision::F64: return f(double());
    case BatchPrecision::C64: return f(std::complex<float>());
    case BatchPrecision::C128: return f(std::complex<double>());
    }
    throw std::invalid_argument("unknown batch precision");
}

} // namespace spyglass::app
