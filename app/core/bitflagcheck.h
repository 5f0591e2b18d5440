#pragma once
// Checks behind the bit-flag panel's operations, independent of the bit-flag code: an fp64 CSR
// oracle for add/sub/multiply (a row merge and a Gustavson product) that also returns the magnitude
// each entry's rounding error scales with, comparisons against it with a bound derived from the
// precision, and LU's backward error |A - L U| against gamma_n |L| |U| (Higham, Thm 9.3).
#include "spyglass/matrix.h"

#include <QString>

#include <atomic>
#include <functional>
#include <vector>

namespace spyglass::app {

// An oracle result and, per stored entry, the magnitude its error scales with:
// |a_ij| + |b_ij| for add/sub, (|A| |B|)_ij for multiply.
struct OracleResult {
    CsrMatrix<double> value;
    std::vector<double> magnitude;  // same positions as value.values
    Index maxTerms = 0;             // most products summed into one entry (multiply), 1 for add/sub
};

// C = A + sign B, the structural union (a cancellation keeps its entry with 0).
OracleResult oracleAdd(const CsrMatrix<double>& a, const CsrMatrix<double>& b, double sign);
// C = A B, the structural product (an entry wherever a product exists, even if the sum is 0).
// cancel is polled per row (true -> CancelledError); progress gets the fraction done.
OracleResult oracleMultiply(const CsrMatrix<double>& a, const CsrMatrix<double>& b, const std::atomic<bool>* cancel = nullptr,
                            const std::function<void(double)>& progress = {});

// gamma_k = k u / (1 - k u) for the unit roundoff u; infinity when k u >= 1.
double gamma(double k, double unitRoundoff);
// Unit roundoff of float and double (half the machine epsilon).
double unitRoundoff32();
double unitRoundoff64();

struct Comparison {
    bool samePattern = false;
    Count entries = 0;            // stored entries of the checked result
    double maxDifference = 0;     // max |got - expected| / max |expected| (0 when expected is all zero)
    double worstBoundRatio = 0;   // max |got - expected| / (factor x magnitude); <= 1 passes
    QString firstProblem;         // the first entry that breaks the pattern or the bound, readable
    bool agrees() const { return samePattern && worstBoundRatio <= 1.0; }
};
// Compares got with expected entry by entry; both must have the same pattern as the oracle.
// The bound of an entry is factor x oracle.magnitude; a zero magnitude demands an exact match.
Comparison compareToOracle(const CsrMatrix<double>& got, const CsrMatrix<double>& expected, const OracleResult& oracle,
                           double factor);

struct LuCheck {
    double residual = 0;         // max |A - L U| / max |A|
    double worstBoundRatio = 0;  // max |A - L U|_ij / (factor x (|L| |U|)_ij); <= 1 passes
    QString firstProblem;
    bool agrees() const { return worstBoundRatio <= 1.0; }
};
// A, L and U square n x n CSR (sorted columns). factor: gamma_n of the factorization's precision
// plus gamma_n of fp64 for forming L U here. cancel polled per row.
LuCheck checkLu(const CsrMatrix<double>& a, const CsrMatrix<double>& lower, const CsrMatrix<double>& upper, double factor,
                const std::atomic<bool>* cancel = nullptr);

// max |x - y| / max |y| over the union of both patterns (a missing entry counts as 0).
double maxRelativeDifference(const CsrMatrix<double>& x, const CsrMatrix<double>& y);

} // namespace spyglass::app
