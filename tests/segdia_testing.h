#pragma once
// Shared helpers of the method-B suites: test matrices, vectors and the precision-derived tolerance.
#include "spyglass/convert.h"
#include "spyglass/matrix.h"
#include "spyglass/matrixmarket.h"

#include <QDir>
#include <QString>
#include <QStringList>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace segdia_testing {

inline QString matricesDir() {
    const QByteArray data = qgetenv("SPYGLASS_DATA");
    if (!data.isEmpty()) return QString::fromLocal8Bit(data) + "/matrices";
    return QStringLiteral(SPYGLASS_MATRICES_DIR);
}

// How many of them the shared set holds (data/matrices/INDEX.md: 27 files, less the 4 complex ones
// and skew_fp64 with its inf). A suite that loops over realMatrixFiles() requires at least this many,
// so that a missing or emptied folder cannot pass by testing nothing.
constexpr int kSharedRealMatrices = 22;

// The real-valued shared matrices with finite values (complex ones have no real SpMV here).
inline QStringList realMatrixFiles() {
    QStringList files;
    for (const QString& name : QDir(matricesDir()).entryList({"*.mtx"}, QDir::Files, QDir::Name)) {
        const auto m = spyglass::readMatrixMarket(QDir(matricesDir()).filePath(name).toStdString());
        if (m.isComplex()) continue;
        bool finite = true;
        for (double v : m.real) finite = finite && std::isfinite(v);
        if (finite) files << name;
    }
    return files;
}

// Sorted, duplicate-free, zero-free coordinates: what a decode must give back.
template <typename T>
spyglass::CooMatrix<T> canonicalCoo(const spyglass::Matrix& matrix) {
    auto coo = spyglass::csrToCoo(spyglass::toCsr<T>(matrix));
    spyglass::CooMatrix<T> out;
    out.rows = coo.rows;
    out.cols = coo.cols;
    for (std::size_t k = 0; k < coo.values.size(); ++k) {
        if (coo.values[k] == T(0)) continue;
        out.rowIndex.push_back(coo.rowIndex[k]);
        out.colIndex.push_back(coo.colIndex[k]);
        out.values.push_back(coo.values[k]);
    }
    return out;
}

template <typename T>
std::vector<T> randomVector(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<T> x(n);
    for (auto& v : x) v = T(dist(rng));
    return x;
}

// Per row, the bound on the difference of two summation orders in precision T: a sum of k products
// has error at most gamma(k) * sum |a||x| each way (Higham), so two results differ by twice that.
template <typename T>
std::vector<double> rowErrorBounds(const spyglass::CsrMatrix<T>& a, const std::vector<T>& x) {
    const double eps = std::numeric_limits<T>::epsilon();
    std::vector<double> bound(static_cast<std::size_t>(a.rows));
    for (spyglass::Index i = 0; i < a.rows; ++i) {
        double magnitude = 0;
        const auto k = a.rowPtr[i + 1] - a.rowPtr[i];
        for (auto e = a.rowPtr[i]; e < a.rowPtr[i + 1]; ++e) magnitude += std::abs(double(a.values[e]) * double(x[a.colIndex[e]]));
        const double gamma = double(k + 1) * eps / (1.0 - double(k + 1) * eps);
        bound[i] = 2.0 * gamma * magnitude + std::numeric_limits<T>::denorm_min();
    }
    return bound;
}

// Empty string when every row is within its bound, else the first offending row.
template <typename T>
std::string compareRows(const std::vector<T>& got, const std::vector<T>& want, const std::vector<double>& bound) {
    if (got.size() != want.size()) return "size " + std::to_string(got.size()) + " != " + std::to_string(want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double diff = std::abs(double(got[i]) - double(want[i]));
        if (!(diff <= bound[i]))
            return "row " + std::to_string(i) + ": " + std::to_string(double(got[i])) + " vs " +
                   std::to_string(double(want[i])) + " (bound " + std::to_string(bound[i]) + ")";
    }
    return {};
}

// A matrix for the remainder kernels' edge cases, with threshold 256: a tridiagonal band in every other
// 256-row segment (segments with diagonals), none in the others (segments without: the DIA pass skips
// them and the remainder pass assigns their rows), scattered entries that Auto puts in the
// remainder (rows with 0, 1 or a few), empty rows in both kinds, and rows longer than one row block's
// 2048 entries in both kinds (their own blocks, reduced whole).
inline spyglass::CooMatrix<double> mixedRemainderMatrix(spyglass::Index rows = 12000) {
    using spyglass::Index;
    spyglass::CooMatrix<double> coo;
    coo.rows = coo.cols = rows;
    std::mt19937 rng(31);
    std::uniform_real_distribution<double> value(-1, 1);
    std::uniform_int_distribution<Index> column(0, rows - 1);
    const auto add = [&](Index r, Index c) {
        coo.rowIndex.push_back(r);
        coo.colIndex.push_back(c);
        coo.values.push_back(value(rng));
    };
    for (Index r = 0; r < rows; ++r)
        if ((r / 256) % 2 == 0)
            for (Index c = r - 1; c <= r + 1; ++c)
                if (c >= 0 && c < rows) add(r, c);
    for (Index r = 0; r < rows; ++r) {
        if (r % 7 == 3) continue;  // empty of scattered entries
        const int scattered = int(r % 5);
        for (int k = 0; k < scattered; ++k) add(r, column(rng));
    }
    for (Index r : {Index(100), Index(256 + 100), Index(rows - 1)})
        for (Index c = 0; c < rows; c += 2) add(r, c);  // rows / 2 entries: longer than a row block
    return coo;
}

} // namespace segdia_testing
