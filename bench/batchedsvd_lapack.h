#pragma once
// CPU LAPACK's SVD (sgesvd / cgesvd) on one thread: the stand-in for the seed's MKL comparison in
// bench_batchedsvd. Compiled only when CMake found a LAPACK (SPYGLASS_HAVE_LAPACK); Debian's
// liblapack3 is the reference LAPACK, libopenblas0 replaces it through the alternatives system.
#ifdef SPYGLASS_HAVE_LAPACK
#include "spyglass/batchedsvd.h"

#include <dlfcn.h>

#include <complex>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

extern "C" {
// Fortran interfaces; the trailing lengths are gfortran's hidden character-argument lengths.
void sgesvd_(const char* jobu, const char* jobvt, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
             const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* info, std::size_t, std::size_t);
void cgesvd_(const char* jobu, const char* jobvt, const int* m, const int* n, std::complex<float>* a, const int* lda,
             float* s, std::complex<float>* u, const int* ldu, std::complex<float>* vt, const int* ldvt,
             std::complex<float>* work, const int* lwork, float* rwork, int* info, std::size_t, std::size_t);
}

namespace spyglass::bench {

// Pins a threaded LAPACK (OpenBLAS) to one thread and says which library answers.
inline std::string lapackSingleThreaded() {
    using SetThreads = void (*)(int);
    using GetConfig = char* (*)();
    if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(1);
    if (auto config = reinterpret_cast<GetConfig>(dlsym(RTLD_DEFAULT, "openblas_get_config")))
        return std::string(config()) + " (1 thread)";
    return "reference LAPACK (single-threaded)";
}

// Thin SVD of one m x n column-major matrix (jobu = jobvt = 'S'); the workspace is queried once.
template <typename T> class LapackSvd {
public:
    LapackSvd(int m, int n) : m_m(m), m_n(n), m_rwork(5 * static_cast<std::size_t>(n)) {
        T query{};
        int info = 0;
        call(nullptr, nullptr, nullptr, nullptr, &query, -1, info);
        m_work.resize(static_cast<std::size_t>(std::real(query)) + 1);
    }
    // a (m x n) is overwritten; s gets n values (descending), u is m x n, vt is n x n (V^H). Returns info.
    int run(T* a, SvdReal<T>* s, T* u, T* vt) {
        int info = 0;
        call(a, s, u, vt, m_work.data(), static_cast<int>(m_work.size()), info);
        return info;
    }

private:
    void call(T* a, SvdReal<T>* s, T* u, T* vt, T* work, int lwork, int& info) {
        const char job = 'S';
        if constexpr (std::is_same_v<T, float>)
            sgesvd_(&job, &job, &m_m, &m_n, a, &m_m, s, u, &m_m, vt, &m_n, work, &lwork, &info, 1, 1);
        else
            cgesvd_(&job, &job, &m_m, &m_n, a, &m_m, s, u, &m_m, vt, &m_n, work, &lwork, m_rwork.data(), &info, 1, 1);
    }
    int m_m, m_n;
    std::vector<SvdReal<T>> m_rwork;
    std::vector<T> m_work;
};

} // namespace spyglass::bench
#endif
