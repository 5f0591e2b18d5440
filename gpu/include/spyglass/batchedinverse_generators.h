#pragma once
// Test and benchmark batches for the batched inverse (method E): column-major n x n matrices stored
// one after the other, as batchedinverse.h describes. Deterministic for a given seed.
#include <cstdint>
#include <vector>

namespace spyglass {

enum class BatchKind {
    Random,         // entries uniform in [-1, 1] (real and imaginary parts independently)
    LteChannel,     // MMSE matrix of a MIMO channel: H^H H + sigma^2 I, H with unit-variance Gaussian
                    // entries, sigma^2 = 1 / SNR (per stream); Hermitian positive definite
    IllConditioned  // U diag(s) V^H, U and V random unitary, s log-spaced from 1 to 1/condition
};

const char* toString(BatchKind kind);

struct BatchSpec {
    BatchKind kind = BatchKind::Random;
    int n = 4;
    std::int64_t count = 1;
    std::uint64_t seed = 1;
    double snrDb = 10.0;       // LteChannel
    double condition = 1e4;    // IllConditioned: the 2-norm condition number (before rounding to T)
    // (Last, so that the positional initialisers {kind, n, count, seed, ...} keep their meaning.)
    // The first matrix returned: matrices [first, first + count) of the seed's stream, which draws
    // matrix i after matrices 0..i-1. The ones before are drawn into a scratch matrix and dropped, so a
    // share of a batch (one process per GPU) holds only its matrices and they equal the whole batch's.
    std::int64_t first = 0;
};

// Throws InputError for n < 1, count < 0, first < 0, condition < 1.
template <typename T>
std::vector<T> generateBatch(const BatchSpec& spec);

} // namespace spyglass
