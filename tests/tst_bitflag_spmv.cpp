// Method A as an SpMV format on the CPU: the reference bitFlagSpmv against the plain CSR SpMV on integer
// inputs (exact sums), in both orders, on edge shapes around the word sizes and on the real matrices;
// and the select function the CUDA kernel uses to turn a value's rank into its column.
#include "../gpu/src/core/bitflag_select.h"
#include "bitflag_sharedmatrices.h"
#include "bitflag_testing.h"
#include "testmatrices.h"

#include "spyglass/bitflag_spmv.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/segdia_spmv.h"

#include <QtTest>

#include <random>

using namespace spyglass;
using namespace bitflag_testing;

namespace {

const std::vector<std::pair<Index, Index>> kShapes = {{1, 1}, {7, 31}, {9, 32}, {5, 33}, {11, 63}, {13, 64}, {3, 65},
                                                      {65, 3}, {17, 129}, {301, 1000}, {0, 7}, {6, 0}};

std::vector<double> integerX(Index n, std::mt19937& rng) {
    std::uniform_int_distribution<int> v(-5, 5);
    std::vector<double> x(static_cast<std::size_t>(n));
    for (double& e : x) e = v(rng);
    return x;
}

// The k-th set bit found by walking the bits one by one.
int naiveSelect(std::uint64_t word, int k) {
    for (int bit = 0; bit < 64; ++bit)
        if ((word >> bit) & 1u) {
            if (k == 0) return bit;
            --k;
        }
    return -1;
}

} // namespace

class TestBitFlagSpmv : public QObject {
    Q_OBJECT

private slots:
    void selectFindsEveryRankOfRandomWords() {
        std::mt19937_64 rng(3);
        std::vector<std::uint64_t> words = {1ull, 1ull << 63, ~0ull, 0x00000000ffffffffull, 0xffffffff00000000ull,
                                            0x8000000000000001ull, 0x5555555555555555ull};
        for (int i = 0; i < 2000; ++i) {
            std::uint64_t w = rng();
            if (i % 3 == 1) w &= rng();        // sparser
            if (i % 3 == 2) w &= rng() & rng();
            words.push_back(w);
        }
        for (const std::uint64_t w : words)
            for (int k = 0; k < __builtin_popcountll(w); ++k)
                QCOMPARE(bitflag_select::selectSetBit(w, k), naiveSelect(w, k));
    }

    void spmvMatchesCsrOnEdgeShapes_data() {
        QTest::addColumn<int>("order");
        QTest::newRow("row-major") << int(BitFlagOrder::RowMajor);
        QTest::newRow("column-major") << int(BitFlagOrder::ColumnMajor);
    }
    void spmvMatchesCsrOnEdgeShapes() {
        QFETCH(int, order);
        std::mt19937 rng(5);
        for (const auto& [rows, cols] : kShapes)
            for (const double density : {0.0, 0.05, 0.4, 1.0}) {
                const std::vector<double> d = randomDense(rows, cols, density, rng);
                const CooMatrix<double> coo = cooOf<double>(d, rows, cols);
                BitFlagOptions options;
                options.order = BitFlagOrder(order);
                options.prefixCounts = density > 0.3;  // the prefix counts do not change the product
                const BitFlagMatrix<double> a = encodeBitFlag(coo, options);
                const std::vector<double> x = integerX(cols, rng);
                const std::vector<double> want = spmvReference(cooToCsr(coo), x);
                QVERIFY2(bitFlagSpmv(a, x) == want,
                         qPrintable(QStringLiteral("%1 x %2 at density %3").arg(rows).arg(cols).arg(density)));
            }
    }

    void spmvMatchesCsrInSinglePrecision() {
        std::mt19937 rng(8);
        const std::vector<double> d = randomDense(70, 200, 0.2, rng);
        const CooMatrix<float> coo = cooOf<float>(d, 70, 200);
        std::vector<float> x(200);
        for (std::size_t j = 0; j < x.size(); ++j) x[j] = float(int(j % 7) - 3);
        QVERIFY(bitFlagSpmv(encodeBitFlag(coo), x) == spmvReference(cooToCsr(coo), x));
    }

    void spmvMatchesCsrOnRealMatrices() {
        // Real values: the same row sums in the same order (ascending columns), so exact as well.
        int tested = 0;
        std::mt19937 rng(11);
        for (const auto& [name, csr] : bitflag_testing::realSharedMatrices()) {
            const std::vector<double> x = integerX(csr.cols, rng);
            const std::vector<double> want = spmvReference(csr, x);
            const std::vector<double> got = bitFlagSpmv(encodeBitFlag(csr), x);
            QCOMPARE(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i)
                QVERIFY2(got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i])),
                         qPrintable(QStringLiteral("%1: row %2: %3 vs %4").arg(name).arg(i).arg(got[i]).arg(want[i])));
            ++tested;
        }
        QVERIFY(tested >= 15);
    }

    void wrongXLengthIsRejected() {
        const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>(std::vector<double>{1, 0, 2, 3}, 2, 2));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagSpmv(a, std::vector<double>{1, 2, 3}));
        BitFlagRunOptions cuda;
        cuda.backend = BitFlagBackend::Cuda;
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagSpmv(a, std::vector<double>{1}, cuda));
    }

    void deviceBytesCountFlagsRowStartsAndValues() {
        // 10 x 100: two 64-bit words a row, 11 row starts, 7 values of 4 bytes.
        QCOMPARE(bitFlagSpmvDeviceBytes(10, 100, 7, 4), std::size_t(10 * 2 * 8 + 11 * 8 + 7 * 4));
        // <= 32 columns: one word a row, widened to 64 bits on the device.
        QCOMPARE(bitFlagSpmvDeviceBytes(3, 20, 5, 8), std::size_t(3 * 8 + 4 * 8 + 5 * 8));
    }
};

QTEST_APPLESS_MAIN(TestBitFlagSpmv)
#include "tst_bitflag_spmv.moc"
