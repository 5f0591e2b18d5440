// Conversions between the file form and COO/CSR/dense: mirrors follow the symmetry kind,
// duplicates are summed, columns come out sorted, and no value type loses data silently.
#include "testmatrices.h"
#include "thrownmessage.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <QtTest>

#include <complex>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace spyglass;
using cd = std::complex<double>;

namespace {

QString matricesDir() {
    return testMatricesDir();
}

Matrix coordinate(Field field, Symmetry symmetry, Index rows, Index cols,
                  const std::vector<std::pair<Index, Index>>& positions, const std::vector<double>& real,
                  const std::vector<double>& imag = {}) {
    Matrix m;
    m.field = field;
    m.symmetry = symmetry;
    m.rows = rows;
    m.cols = cols;
    for (const auto& [i, j] : positions) {
        m.rowIndex.push_back(i);
        m.colIndex.push_back(j);
    }
    m.real = real;
    m.imag = imag;
    return m;
}

template <typename T> T integerValue(std::mt19937& random) {
    const int v = static_cast<int>(random() % 19) - 9;  // small integers: sums stay exact in float
    if constexpr (std::is_same_v<T, std::uint8_t>) {
        return 1;
    } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, cd>) {
        return T(static_cast<typename T::value_type>(v), static_cast<typename T::value_type>(v % 4));
    } else {
        return static_cast<T>(v);
    }
}

// cooToCsr against an ordered map that sums duplicates; uint8 (pattern) keeps 1.
template <typename T> void verifyCooToCsrMatchesMapOracle(Index rows, Index cols, int entries, unsigned seed) {
    std::mt19937 random(seed);
    CooMatrix<T> coo;
    coo.rows = rows;
    coo.cols = cols;
    std::map<std::pair<Index, Index>, T> oracle;
    if (rows > 0 && cols > 0) {
        for (int k = 0; k < entries; ++k) {
            // A narrow column range forces duplicates.
            const Index i = static_cast<Index>(random() % static_cast<unsigned>(rows));
            const Index j = static_cast<Index>(random() % static_cast<unsigned>(std::min<Index>(cols, 1 + cols / 3)));
            const T value = integerValue<T>(random);
            coo.rowIndex.push_back(i);
            coo.colIndex.push_back(j);
            coo.values.push_back(value);
            auto [it, inserted] = oracle.emplace(std::make_pair(i, j), value);
            if (!inserted) {
                if constexpr (std::is_same_v<T, std::uint8_t>) {
                    it->second = 1;
                } else {
                    it->second += value;
                }
            }
        }
    }
    const CsrMatrix<T> csr = cooToCsr(coo);
    QCOMPARE(csr.rows, rows);
    QCOMPARE(csr.cols, cols);
    QCOMPARE(csr.rowPtr.size(), std::size_t(rows) + 1);
    QCOMPARE(csr.nnz(), Count(oracle.size()));
    auto expected = oracle.begin();
    for (Index i = 0; i < rows; ++i) {
        for (Count k = csr.rowPtr[i]; k < csr.rowPtr[i + 1]; ++k, ++expected) {
            QCOMPARE(expected->first.first, i);
            QCOMPARE(csr.colIndex[k], expected->first.second);
            QVERIFY(csr.values[k] == expected->second);
        }
    }
    // CSR -> COO -> CSR is the identity, and the dense forms agree.
    const CsrMatrix<T> again = cooToCsr(csrToCoo(csr));
    QVERIFY(again.rowPtr == csr.rowPtr && again.colIndex == csr.colIndex && again.values == csr.values);
    const DenseMatrix<T> dense = csrToDense(csr);
    for (const auto& [position, value] : oracle) {
        QVERIFY(dense(position.first, position.second) == value);
    }
    const CsrMatrix<T> fromDense = denseToCsr(dense);
    Count nonZero = 0;
    for (const auto& entry : oracle) {
        nonZero += entry.second == T(0) ? 0 : 1;
    }
    QCOMPARE(fromDense.nnz(), nonZero);
}

template <typename T> void verifyFileFormRoundTrip(Field expectedField) {
    const Matrix m = coordinate(Field::Integer, Symmetry::General, 3, 4, {{2, 3}, {0, 1}, {0, 0}}, {5, 2, 1});
    const CsrMatrix<T> csr = toCsr<T>(m);
    const Matrix back = fromCsr(csr);
    QCOMPARE(back.field, expectedField);
    QCOMPARE(back.layout, Layout::Coordinate);
    QCOMPARE(back.rowIndex, (std::vector<Index>{0, 0, 2}));
    QCOMPARE(back.colIndex, (std::vector<Index>{0, 1, 3}));
    const CsrMatrix<T> again = toCsr<T>(back);
    QVERIFY(again.values == csr.values && again.colIndex == csr.colIndex && again.rowPtr == csr.rowPtr);
    const Matrix array = fromDense(toDense<T>(m));
    QCOMPARE(array.layout, Layout::Array);
    QCOMPARE(array.stored(), Count(12));
    if constexpr (std::is_same_v<T, std::uint8_t>) {
        // uint8 reads every stored entry as 1, so the 0/1 array is compared as integers.
        const std::vector<std::int64_t> zeroOne = toDense<std::int64_t>(array).values;
        const std::vector<std::uint8_t> expected = toDense<T>(m).values;
        QVERIFY(std::equal(zeroOne.begin(), zeroOne.end(), expected.begin(), expected.end()));
    } else {
        QVERIFY(toDense<T>(array).values == toDense<T>(m).values);
    }
}

} // namespace

class TestConvert : public QObject {
    Q_OBJECT
private slots:
    void symmetricMirrorIsEqual() {
        const Matrix m = coordinate(Field::Real, Symmetry::Symmetric, 3, 3, {{0, 0}, {1, 0}, {2, 1}, {2, 2}},
                                    {4, -1, 2.5, 7});
        const DenseMatrix<double> dense = toDense<double>(m);
        QCOMPARE(dense.values, (std::vector<double>{4, -1, 0, -1, 0, 2.5, 0, 2.5, 7}));  // column-major
        const CsrMatrix<double> csr = toCsr<double>(m);
        QCOMPARE(csr.rowPtr, (std::vector<Count>{0, 2, 4, 6}));
        QCOMPARE(csr.colIndex, (std::vector<Index>{0, 1, 0, 2, 1, 2}));
        QCOMPARE(csr.values, (std::vector<double>{4, -1, -1, 2.5, 2.5, 7}));
        QCOMPARE(expandSymmetry(m).stored(), Count(6));
        QCOMPARE(m.expandedEntries(), Count(6));
    }

    void skewMirrorIsNegated() {
        const Matrix m = coordinate(Field::Integer, Symmetry::SkewSymmetric, 3, 3, {{1, 0}, {2, 0}}, {3, -2});
        QCOMPARE(toDense<std::int64_t>(m).values, (std::vector<std::int64_t>{0, 3, -2, -3, 0, 0, 2, 0, 0}));
        const Matrix full = expandSymmetry(m);
        QCOMPARE(full.symmetry, Symmetry::General);
        QCOMPARE(full.rowIndex, (std::vector<Index>{1, 0, 2, 0}));
        QCOMPARE(full.colIndex, (std::vector<Index>{0, 1, 0, 2}));
        QCOMPARE(full.real, (std::vector<double>{3, -3, -2, 2}));
    }

    void hermitianMirrorIsConjugate() {
        const Matrix m = coordinate(Field::Complex, Symmetry::Hermitian, 2, 2, {{0, 0}, {1, 0}, {1, 1}}, {2, 1, 3},
                                    {0, -1, 0});
        const DenseMatrix<cd> dense = toDense<cd>(m);
        QCOMPARE(dense(0, 0), cd(2, 0));
        QCOMPARE(dense(1, 0), cd(1, -1));
        QCOMPARE(dense(0, 1), cd(1, 1));
        QCOMPARE(dense(1, 1), cd(3, 0));
        const Matrix full = expandSymmetry(m);
        QCOMPARE(full.imag, (std::vector<double>{0, -1, 1, 0}));
        const CsrMatrix<std::complex<float>> csr = toCsr<std::complex<float>>(m);
        QCOMPARE(csr.values[1], std::complex<float>(1, 1));  // row 0, column 1: the conjugate
    }

    void skewComplexMirrorIsNegatedNotConjugated() {
        const Matrix m = coordinate(Field::Complex, Symmetry::SkewSymmetric, 2, 2, {{1, 0}}, {1}, {2});
        QCOMPARE(toDense<cd>(m)(0, 1), cd(-1, -2));
    }

    void duplicatesAreSummedInCsrAndDense() {
        const Matrix m = coordinate(Field::Real, Symmetry::General, 2, 3, {{0, 1}, {1, 2}, {0, 1}, {0, 1}, {1, 0}},
                                    {1.5, -1, 1.5, 0.25, 8});
        const CsrMatrix<double> csr = toCsr<double>(m);
        QCOMPARE(csr.rowPtr, (std::vector<Count>{0, 1, 3}));
        QCOMPARE(csr.colIndex, (std::vector<Index>{1, 0, 2}));
        QCOMPARE(csr.values, (std::vector<double>{3.25, 8, -1}));
        QCOMPARE(toDense<float>(m)(0, 1), 3.25f);
        QCOMPARE(toCoo<double>(m).nnz(), Count(5));  // COO keeps the file's entries
    }

    void patternEntriesBecomeOne() {
        const Matrix m = coordinate(Field::Pattern, Symmetry::Symmetric, 3, 3, {{1, 0}, {1, 0}, {2, 2}}, {});
        QCOMPARE(toCsr<double>(m).values, (std::vector<double>{2, 2, 1}));  // duplicates summed
        const CsrMatrix<std::uint8_t> binary = toCsr<std::uint8_t>(m);
        QCOMPARE(binary.values, (std::vector<std::uint8_t>{1, 1, 1}));  // structure: stays 1
        QCOMPARE(binary.colIndex, (std::vector<Index>{1, 0, 2}));
        QCOMPARE(toDense<cd>(m)(2, 2), cd(1, 0));
        QCOMPARE(toCoo<std::int64_t>(m).values, (std::vector<std::int64_t>{1, 1, 1, 1, 1}));
        QVERIFY(m.isBinary());
    }

    void complexToRealIsRefused() {
        const Matrix m = coordinate(Field::Complex, Symmetry::General, 1, 1, {{0, 0}}, {1}, {0});
        QVERIFY_THROWS_EXCEPTION(InputError, toCsr<double>(m));
        QVERIFY_THROWS_EXCEPTION(InputError, toDense<float>(m));
        QVERIFY_THROWS_EXCEPTION(InputError, toCoo<std::int64_t>(m));
        QCOMPARE(toCsr<std::uint8_t>(m).nnz(), Count(1));  // structure of a complex matrix is fine
        QCOMPARE(toCsr<cd>(m).values.front(), cd(1, 0));
    }

    void nonIntegerToInt64IsRefused() {
        const Matrix m = coordinate(Field::Real, Symmetry::General, 1, 2, {{0, 0}, {0, 1}}, {4, 1.5});
        QVERIFY_THROWS_EXCEPTION(InputError, toCsr<std::int64_t>(m));
        const Matrix exact = coordinate(Field::Integer, Symmetry::General, 1, 1, {{0, 0}}, {9007199254740992.0});
        QCOMPARE(toCsr<std::int64_t>(exact).values.front(), std::int64_t(9007199254740992));
    }

    void inconsistentInputIsRefused() {
        Matrix m = coordinate(Field::Real, Symmetry::General, 2, 2, {{0, 0}, {2, 0}}, {1, 2});
        QVERIFY_THROWS_EXCEPTION(InputError, toCsr<double>(m));
        m = coordinate(Field::Real, Symmetry::General, 2, 2, {{0, 0}}, {1, 2});
        QVERIFY_THROWS_EXCEPTION(InputError, toCoo<double>(m));
        CsrMatrix<float> csr;
        csr.rows = 2;
        csr.cols = 2;
        csr.rowPtr = {0, 1};
        QVERIFY_THROWS_EXCEPTION(InputError, csrToCoo(csr));
        // Sizes that agree but a first row pointer that is not 0: refused by name, not as a size mismatch.
        csr.rowPtr = {1, 1, 2};
        csr.colIndex = {0, 1};
        csr.values = {1, 2};
        const std::optional<std::string> message = thrownMessage<InputError>([&] { csrToCoo(csr); });
        QVERIFY2(message, "a CSR row pointer starting at 1 was accepted");
        QCOMPARE(QString::fromStdString(*message), QStringLiteral("CSR row pointer starts at 1, not 0"));
        DenseMatrix<float> dense;
        dense.rows = 2;
        dense.cols = 2;
        dense.values = {1, 2, 3};
        QVERIFY_THROWS_EXCEPTION(InputError, denseToCsr(dense));
    }

    void denseToCsrDropsExactZerosOnly() {
        DenseMatrix<double> dense;
        dense.rows = 2;
        dense.cols = 3;
        dense.values = {0, 1e-300, -0.0, 5, 0, -2};  // column-major
        const CsrMatrix<double> csr = denseToCsr(dense);
        QCOMPARE(csr.rowPtr, (std::vector<Count>{0, 0, 3}));  // row 0 holds only zeros, -0.0 included
        QCOMPARE(csr.colIndex, (std::vector<Index>{0, 1, 2}));
        QCOMPARE(csr.values, (std::vector<double>{1e-300, 5, -2}));
        QCOMPARE(csrToDense(csr).values, (std::vector<double>{0, 1e-300, 0, 5, 0, -2}));
    }

    void emptyShapesConvert() {
        for (const auto& [rows, cols] : {std::pair<Index, Index>{0, 0}, {0, 5}, {5, 0}, {4, 4}}) {
            const Matrix m = coordinate(Field::Real, Symmetry::General, rows, cols, {}, {});
            const CsrMatrix<double> csr = toCsr<double>(m);
            QCOMPARE(csr.rowPtr, std::vector<Count>(std::size_t(rows) + 1, 0));
            QCOMPARE(toDense<double>(m).values.size(), std::size_t(rows) * std::size_t(cols));
            QCOMPARE(fromDense(toDense<double>(m)).stored(), Count(rows) * cols);
        }
    }

    void cooToCsrMatchesMapOracleForEveryType() {
        unsigned seed = 1;
        for (const auto& [rows, cols, entries] :
             {std::tuple<Index, Index, int>{37, 23, 500}, {1, 1, 5}, {0, 5, 0}, {5, 0, 0}, {101, 3, 1000}}) {
            verifyCooToCsrMatchesMapOracle<float>(rows, cols, entries, seed++);
            verifyCooToCsrMatchesMapOracle<double>(rows, cols, entries, seed++);
            verifyCooToCsrMatchesMapOracle<std::complex<float>>(rows, cols, entries, seed++);
            verifyCooToCsrMatchesMapOracle<cd>(rows, cols, entries, seed++);
            verifyCooToCsrMatchesMapOracle<std::int64_t>(rows, cols, entries, seed++);
            verifyCooToCsrMatchesMapOracle<std::uint8_t>(rows, cols, entries, seed++);
        }
    }

    void fileFormRoundTripsForEveryType() {
        verifyFileFormRoundTrip<float>(Field::Real);
        verifyFileFormRoundTrip<double>(Field::Real);
        verifyFileFormRoundTrip<std::complex<float>>(Field::Complex);
        verifyFileFormRoundTrip<cd>(Field::Complex);
        verifyFileFormRoundTrip<std::int64_t>(Field::Integer);
        verifyFileFormRoundTrip<std::uint8_t>(Field::Pattern);
    }

    void sharedMatricesExpandToIndexedCounts() {
        const QStringList files = QDir(matricesDir()).entryList({"*.mtx"}, QDir::Files);
        QVERIFY(files.size() >= 27);
        for (const QString& file : files) {
            const Matrix m = readMatrixMarket((matricesDir() + "/" + file).toStdString());
            const CsrMatrix<std::uint8_t> structure = toCsr<std::uint8_t>(m);
            // None of the shared files repeats a position, so CSR holds every expanded entry once.
            QVERIFY2(structure.nnz() == m.expandedEntries(), qPrintable(file));
            for (Index i = 0; i < structure.rows; ++i) {
                for (Count k = structure.rowPtr[i] + 1; k < structure.rowPtr[i + 1]; ++k) {
                    QVERIFY2(structure.colIndex[k - 1] < structure.colIndex[k], qPrintable(file));
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestConvert)
#include "tst_convert.moc"
