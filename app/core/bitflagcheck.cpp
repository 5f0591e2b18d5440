// The fp64 CSR oracle and the error bounds of the bit-flag panel's checks.
#include "bitflagcheck.h"

#include "spyglass/error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace spyglass::app {

namespace {

void throwIfCancelled(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load()) throw CancelledError();
}

void requireSorted(const CsrMatrix<double>& m, const char* what) {
    if (m.rowPtr.size() != std::size_t(m.rows) + 1) throw InputError(std::string(what) + ": CSR needs rows + 1 row pointers");
}

// Row i of two column-sorted CSR matrices walked together: visit(j, x_ij, y_ij, inX, inY) once per
// column either stores, in column order; an entry one of them lacks reads as 0.
template <typename Visit>
void forEachMergedEntry(const CsrMatrix<double>& x, const CsrMatrix<double>& y, Index i, Visit&& visit) {
    Count kx = x.rowPtr[i], ky = y.rowPtr[i];
    const Count ex = x.rowPtr[i + 1], ey = y.rowPtr[i + 1];
    while (kx < ex || ky < ey) {
        const Index jx = kx < ex ? x.colIndex[std::size_t(kx)] : std::numeric_limits<Index>::max();
        const Index jy = ky < ey ? y.colIndex[std::size_t(ky)] : std::numeric_limits<Index>::max();
        const Index j = std::min(jx, jy);
        const double vx = jx == j ? x.values[std::size_t(kx++)] : 0.0;
        const double vy = jy == j ? y.values[std::size_t(ky++)] : 0.0;
        visit(j, vx, vy, jx == j, jy == j);
    }
}

// The terms of row i of the product A B: visit(j, a_ik b_kj, |a_ik| |b_kj|) for each k stored in row i
// of A and each j stored in row k of B (Gustavson's order).
template <typename Visit>
void forEachProductTerm(const CsrMatrix<double>& a, const CsrMatrix<double>& b, Index i, Visit&& visit) {
    for (Count ka = a.rowPtr[i]; ka < a.rowPtr[i + 1]; ++ka) {
        const Index k = a.colIndex[std::size_t(ka)];
        const double aik = a.values[std::size_t(ka)];
        for (Count kb = b.rowPtr[k]; kb < b.rowPtr[k + 1]; ++kb) {
            const double bkj = b.values[std::size_t(kb)];
            visit(b.colIndex[std::size_t(kb)], aik * bkj, std::abs(aik) * std::abs(bkj));
        }
    }
}

QString at(Index i, Index j) { return QStringLiteral("(%1, %2)").arg(i).arg(j); }

// Ratio of an error to its bound; a zero bound allows only an exact match.
double boundRatio(double error, double bound) {
    if (error == 0) return 0;
    if (!(bound > 0)) return std::numeric_limits<double>::infinity();
    return error / bound;
}

} // namespace

double gamma(double k, double u) {
    const double ku = k * u;
    return ku < 1 ? ku / (1 - ku) : std::numeric_limits<double>::infinity();
}

double unitRoundoff32() { return std::numeric_limits<float>::epsilon() / 2; }
double unitRoundoff64() { return std::numeric_limits<double>::epsilon() / 2; }

OracleResult oracleAdd(const CsrMatrix<double>& a, const CsrMatrix<double>& b, double sign) {
    requireSorted(a, "oracle add");
    requireSorted(b, "oracle add");
    if (a.rows != b.rows || a.cols != b.cols) throw InputError("oracle add: A and B differ in shape");
    OracleResult out;
    out.maxTerms = 1;
    CsrMatrix<double>& c = out.value;
    c.rows = a.rows;
    c.cols = a.cols;
    c.rowPtr.assign(std::size_t(a.rows) + 1, 0);
    for (Index i = 0; i < a.rows; ++i) {
        forEachMergedEntry(a, b, i, [&](Index j, double va, double vb, bool, bool) {
            c.colIndex.push_back(j);
            c.values.push_back(va + sign * vb);
            out.magnitude.push_back(std::abs(va) + std::abs(vb));
        });
        c.rowPtr[std::size_t(i) + 1] = Count(c.values.size());
    }
    return out;
}

OracleResult oracleMultiply(const CsrMatrix<double>& a, const CsrMatrix<double>& b, const std::atomic<bool>* cancel,
                            const std::function<void(double)>& progress) {
    requireSorted(a, "oracle multiply");
    requireSorted(b, "oracle multiply");
    if (a.cols != b.rows) throw InputError("oracle multiply: A's columns differ from B's rows");
    OracleResult out;
    CsrMatrix<double>& c = out.value;
    c.rows = a.rows;
    c.cols = b.cols;
    c.rowPtr.assign(std::size_t(a.rows) + 1, 0);
    // Gustavson: one dense accumulator row, reset through the list of touched columns.
    std::vector<double> sum(std::size_t(b.cols), 0.0), magnitude(std::size_t(b.cols), 0.0);
    std::vector<Index> terms(std::size_t(b.cols), 0);
    std::vector<Index> touched;
    for (Index i = 0; i < a.rows; ++i) {
        if ((i & 63) == 0) {
            throwIfCancelled(cancel);
            if (progress) progress(double(i) / double(std::max<Index>(a.rows, 1)));
        }
        touched.clear();
        forEachProductTerm(a, b, i, [&](Index j, double term, double termMagnitude) {
            if (terms[std::size_t(j)] == 0) touched.push_back(j);
            ++terms[std::size_t(j)];
            sum[std::size_t(j)] += term;
            magnitude[std::size_t(j)] += termMagnitude;
        });
        std::sort(touched.begin(), touched.end());
        for (Index j : touched) {
            c.colIndex.push_back(j);
            c.values.push_back(sum[std::size_t(j)]);
            out.magnitude.push_back(magnitude[std::size_t(j)]);
            out.maxTerms = std::max(out.maxTerms, terms[std::size_t(j)]);
            sum[std::size_t(j)] = magnitude[std::size_t(j)] = 0;
            terms[std::size_t(j)] = 0;
        }
        c.rowPtr[std::size_t(i) + 1] = Count(c.values.size());
    }
    return out;
}

Comparison compareToOracle(const CsrMatrix<double>& got, const CsrMatrix<double>& expected, const OracleResult& oracle,
                           double factor) {
    Comparison result;
    result.entries = got.nnz();
    result.samePattern = got.rows == expected.rows && got.cols == expected.cols;
    if (!result.samePattern) {
        result.firstProblem = QStringLiteral("the result is %1 x %2 but should be %3 x %4")
                                  .arg(got.rows).arg(got.cols).arg(expected.rows).arg(expected.cols);
        result.worstBoundRatio = std::numeric_limits<double>::infinity();
        return result;
    }
    const CsrMatrix<double>& o = oracle.value;
    double scale = 0, worstDifference = 0;
    for (double v : expected.values) scale = std::max(scale, std::abs(v));
    for (Index i = 0; i < got.rows; ++i) {
        Count ko = o.rowPtr[i];
        const Count eo = o.rowPtr[i + 1];
        forEachMergedEntry(got, expected, i, [&](Index j, double g, double e, bool stored, bool meant) {
            if (stored != meant && result.samePattern) {
                result.samePattern = false;
                if (result.firstProblem.isEmpty())
                    result.firstProblem = stored ? QStringLiteral("%1 is stored but should not be").arg(at(i, j))
                                                 : QStringLiteral("%1 is missing").arg(at(i, j));
            }
            while (ko < eo && o.colIndex[std::size_t(ko)] < j) ++ko;
            const double magnitude = ko < eo && o.colIndex[std::size_t(ko)] == j ? oracle.magnitude[std::size_t(ko)] : 0.0;
            const double difference = std::abs(g - e);
            const double ratio = std::isfinite(g) ? boundRatio(difference, factor * magnitude)
                                                  : std::numeric_limits<double>::infinity();
            worstDifference = std::max(worstDifference, std::isfinite(difference) ? difference : std::numeric_limits<double>::infinity());
            if (ratio > 1 && result.firstProblem.isEmpty())
                result.firstProblem = QStringLiteral("%1 is %2, expected %3 (allowed difference %4)")
                                          .arg(at(i, j)).arg(g, 0, 'g', 17).arg(e, 0, 'g', 17).arg(factor * magnitude, 0, 'g', 3);
            result.worstBoundRatio = std::max(result.worstBoundRatio, ratio);
        });
    }
    result.maxDifference = scale > 0 ? worstDifference / scale : worstDifference;
    return result;
}

LuCheck checkLu(const CsrMatrix<double>& a, const CsrMatrix<double>& lower, const CsrMatrix<double>& upper, double factor,
                const std::atomic<bool>* cancel) {
    requireSorted(a, "LU check");
    requireSorted(lower, "LU check");
    requireSorted(upper, "LU check");
    const Index n = a.rows;
    if (a.cols != n || lower.rows != n || lower.cols != n || upper.rows != n || upper.cols != n)
        throw InputError("LU check: A, L and U must all be n x n");
    LuCheck check;
    double scale = 0, worst = 0;
    for (double v : a.values) scale = std::max(scale, std::abs(v));
    std::vector<double> product(std::size_t(n), 0.0), magnitude(std::size_t(n), 0.0);
    std::vector<char> seen(std::size_t(n), 0);
    std::vector<Index> touched;
    auto touch = [&](Index j) {
        if (!seen[std::size_t(j)]) {
            seen[std::size_t(j)] = 1;
            touched.push_back(j);
        }
    };
    for (Index i = 0; i < n; ++i) {
        if ((i & 15) == 0) throwIfCancelled(cancel);
        touched.clear();
        forEachProductTerm(lower, upper, i, [&](Index j, double term, double termMagnitude) {
            touch(j);
            product[std::size_t(j)] += term;
            magnitude[std::size_t(j)] += termMagnitude;
        });
        for (Count ka = a.rowPtr[i]; ka < a.rowPtr[i + 1]; ++ka) touch(a.colIndex[std::size_t(ka)]);
        std::sort(touched.begin(), touched.end());
        Count ka = a.rowPtr[i];
        for (Index j : touched) {
            double aij = 0;
            while (ka < a.rowPtr[i + 1] && a.colIndex[std::size_t(ka)] < j) ++ka;
            if (ka < a.rowPtr[i + 1] && a.colIndex[std::size_t(ka)] == j) aij = a.values[std::size_t(ka)];
            const double error = std::abs(aij - product[std::size_t(j)]);
            const double ratio = std::isfinite(error) ? boundRatio(error, factor * magnitude[std::size_t(j)])
                                                      : std::numeric_limits<double>::infinity();
            worst = std::max(worst, std::isfinite(error) ? error : std::numeric_limits<double>::infinity());
            if (ratio > 1 && check.firstProblem.isEmpty())
                check.firstProblem = QStringLiteral("(L U)%1 = %2 but A%1 = %3")
                                         .arg(at(i, j)).arg(product[std::size_t(j)], 0, 'g', 17).arg(aij, 0, 'g', 17);
            check.worstBoundRatio = std::max(check.worstBoundRatio, ratio);
            product[std::size_t(j)] = magnitude[std::size_t(j)] = 0;
            seen[std::size_t(j)] = 0;
        }
    }
    check.residual = scale > 0 ? worst / scale : worst;
    return check;
}

double maxRelativeDifference(const CsrMatrix<double>& x, const CsrMatrix<double>& y) {
    if (x.rows != y.rows || x.cols != y.cols) return std::numeric_limits<double>::infinity();
    double scale = 0, worst = 0;
    for (double v : y.values) scale = std::max(scale, std::abs(v));
    for (Index i = 0; i < x.rows; ++i)
        forEachMergedEntry(x, y, i, [&](Index, double vx, double vy, bool, bool) {
            const double d = std::abs(vx - vy);
            worst = std::max(worst, std::isfinite(d) ? d : std::numeric_limits<double>::infinity());
        });
    return scale > 0 ? worst / scale : worst;
}

} // namespace spyglass::app
