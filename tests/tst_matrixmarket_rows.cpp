// A rank's own rows of a Matrix Market file (readMatrixMarketRows): for 1 to 4 ranks the blocks cover
// the rows once, in order, and each rank holds exactly the entries of the full matrix in its rows -
// symmetric kinds expanded as expandSymmetry expands them, values bit for bit, in the same order - on
// every test matrix; the blocks are the single-process plan's CSR cuts; a damaged file gives every
// rank the error and line the whole-file reader gives.
#include "matrixentries.h"
#include "testmatrices.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/matrixmarket_rows.h"
#include "spyglass/multigpu.h"

#include <QtTest>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <fstream>
#include <string>
#include <vector>

using namespace spyglass;

namespace {

// Cuts of a few hundred bytes on three threads: chunk edges fall everywhere, as in a large file.
ReadOptions smallChunks() {
    ReadOptions options;
    options.threads = 3;
    options.chunkBytes = 301;
    return options;
}

// The full matrix's entries in rows [begin, end), in expandSymmetry's order.
Matrix rowsOf(const Matrix& full, Index begin, Index end) {
    Matrix kept = full.generalHeader(Layout::Coordinate);
    for (std::size_t k = 0; k < full.rowIndex.size(); ++k) {
        if (full.rowIndex[k] < begin || full.rowIndex[k] >= end) continue;
        kept.rowIndex.push_back(full.rowIndex[k]);
        kept.colIndex.push_back(full.colIndex[k]);
        if (!full.real.empty()) kept.real.push_back(full.real[k]);
        if (!full.imag.empty()) kept.imag.push_back(full.imag[k]);
    }
    return kept;
}

bool sameEntries(const Matrix& a, const Matrix& b) {
    return a.rows == b.rows && a.cols == b.cols && a.field == b.field && a.symmetry == b.symmetry && a.layout == b.layout &&
           a.rowIndex == b.rowIndex && a.colIndex == b.colIndex && matrixentries::sameBits(a.real, b.real) &&
           matrixentries::sameBits(a.imag, b.imag);
}

// The cuts of the single-process path (partitionMatrix on the CSR matrix), padded to ranks + 1.
template <typename T>
std::vector<Index> singleProcessCuts(const Matrix& m, int ranks) {
    const PartitionPlan plan = partitionMatrix(toCsr<T>(m), ranks).plan;
    std::vector<Index> cuts;
    for (const RowPartition& part : plan.parts) cuts.push_back(part.rowBegin);
    while (cuts.size() < std::size_t(ranks) + 1) cuts.push_back(m.rows);
    return cuts;
}

QString writeTemporary(const QTemporaryDir& dir, const char* name, const std::string& text) {
    const QString path = dir.path() + "/" + name;
    std::ofstream(path.toStdString(), std::ios::binary) << text;
    return path;
}

std::string errorOf(const std::function<void()>& read) {
    try {
        read();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace

class TestMatrixMarketRows : public QObject {
    Q_OBJECT

private slots:
    void ranksHoldExactlyTheirRows_data() { smallMatricesByRanks(); }
    void ranksHoldExactlyTheirRows() {
        QFETCH(QString, path);
        QFETCH(int, ranks);
        const Matrix stored = readMatrixMarket(path.toStdString());
        const Matrix full = expandSymmetry(stored);
        std::vector<Index> blocks;
        Count held = 0;
        for (int rank = 0; rank < ranks; ++rank) {
            const RankRows mine = readMatrixMarketRows(path.toStdString(), rank, ranks, sizeof(double), smallChunks());
            if (rank == 0) blocks = mine.blockStarts;
            QVERIFY(mine.blockStarts == blocks);  // every rank cuts alike
            QCOMPARE(mine.rowBegin, blocks[std::size_t(rank)]);
            QCOMPARE(mine.rowEnd, blocks[std::size_t(rank) + 1]);
            QVERIFY2(sameEntries(mine.entries, rowsOf(full, mine.rowBegin, mine.rowEnd)), qPrintable(QString("rank %1").arg(rank)));
            QCOMPARE(mine.entries.comments, stored.comments);
            held += mine.entries.stored();
        }
        // The blocks cover the rows once, in order, so the ranks' entries together are the matrix's.
        QCOMPARE(blocks.size(), std::size_t(ranks) + 1);
        QCOMPARE(blocks.front(), 0);
        QCOMPARE(blocks.back(), full.rows);
        QVERIFY(std::is_sorted(blocks.begin(), blocks.end()));
        QCOMPARE(held, full.stored());
        if (ranks > 1 && full.rows >= ranks * 4) QVERIFY2(blocks[1] > 0 && blocks[1] < full.rows, "the rows were not split");
    }

    void blocksAreTheSingleProcessCuts_data() { smallMatricesByRanks(); }
    void blocksAreTheSingleProcessCuts() {
        QFETCH(QString, path);
        QFETCH(int, ranks);
        const Matrix m = readMatrixMarket(path.toStdString());
        if (m.isComplex()) QSKIP("the partitioned runs take real matrices");
        // A position listed twice is one CSR entry to the plan but two stored entries to the counting pass.
        if (toCsr<double>(m).nnz() != m.expandedEntries()) QSKIP("the file lists a position twice (see matrixmarket_rows.h)");
        const RankRows doubles = readMatrixMarketRows(path.toStdString(), 0, ranks, sizeof(double), smallChunks());
        QVERIFY(doubles.blockStarts == singleProcessCuts<double>(m, ranks));
        const RankRows floats = readMatrixMarketRows(path.toStdString(), ranks - 1, ranks, sizeof(float), smallChunks());
        QVERIFY(floats.blockStarts == singleProcessCuts<float>(m, ranks));
    }

    void damagedFilesGiveTheWholeReadersError_data() {
        QTest::addColumn<QString>("text");
        const std::string head = "%%MatrixMarket matrix coordinate real general\n% a comment\n5 5 4\n";
        QTest::newRow("a bad value") << QString::fromStdString(head + "1 1 1.0\n2 2 2.0\n3 3 x\n4 4 4.0\n");
        QTest::newRow("an index out of range") << QString::fromStdString(head + "1 1 1.0\n2 6 2.0\n3 3 3\n4 4 4.0\n");
        QTest::newRow("too few entries") << QString::fromStdString(head + "1 1 1.0\n2 2 2.0\n");
        QTest::newRow("too many entries") << QString::fromStdString(head + "1 1 1\n2 2 2\n3 3 3\n4 4 4\n5 5 5\n");
        QTest::newRow("an error after the declared entries")
            << QString::fromStdString(head + "1 1 1\n2 2 2\n3 3 3\n4 4 4\nnonsense\n");
        QTest::newRow("a bad header") << "%%MatrixMarket matrix coordinate real sideways\n2 2 1\n1 1 1\n";
        QTest::newRow("a symmetric upper entry repeating a lower one")
            << "%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n3 1 1.0\n2 2 1.0\n1 3 2.0\n";
        QTest::newRow("array too short") << "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n";
    }
    void damagedFilesGiveTheWholeReadersError() {
        QFETCH(QString, text);
        QTemporaryDir dir;
        const std::string path = writeTemporary(dir, "damaged.mtx", text.toStdString()).toStdString();
        const std::string expected = errorOf([&] { readMatrixMarket(path); });
        QVERIFY2(expected != "(no error)", "the case is not damaged");
        ReadOptions oneLinePerChunk = smallChunks();
        oneLinePerChunk.chunkBytes = 1;
        // A symmetric entry repeated above the diagonal is found by the rank holding its row (the
        // other succeeds); every other problem by every rank.
        const bool mirrorCase = expected.find("duplicates") != std::string::npos;
        for (const ReadOptions& options : {smallChunks(), oneLinePerChunk}) {
            int found = 0;
            for (const int rank : {0, 1}) {
                const std::string got = errorOf([&] { readMatrixMarketRows(path, rank, 2, sizeof(double), options); });
                if (mirrorCase && got == "(no error)") continue;
                QCOMPARE(QString::fromStdString(got), QString::fromStdString(expected));
                ++found;
            }
            QCOMPARE(found, mirrorCase ? 1 : 2);
            const std::string alone = errorOf([&] { readMatrixMarketRows(path, 0, 1, sizeof(double), options); });
            QCOMPARE(QString::fromStdString(alone), QString::fromStdString(expected));
        }
    }

    void gzipFilesAreRefusedWithAReason() {
        QTemporaryDir dir;
        const QString path = writeTemporary(dir, "m.mtx.gz", std::string("\x1f\x8b\x08\x00", 4) + "rest");
        const std::string error = errorOf([&] { readMatrixMarketRows(path.toStdString(), 0, 2); });
        QVERIFY2(error.find("needs an uncompressed file") != std::string::npos, error.c_str());
    }

    // A 70-byte file declaring two billion rows: the per-row counts (32 GB) are refused by name
    // before anything is allocated, on a host with less free memory than that.
    void twoBillionDeclaredRowsAreRefusedBeforeCounting() {
        const double hostBytes = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
        if (hostBytes >= 32e9) QSKIP("this host could hold the 32 GB of counts");
        QTemporaryDir dir;
        const QString path = writeTemporary(dir, "tall.mtx", "%%MatrixMarket matrix coordinate real general\n2000000000 3 1\n1 1 1\n");
        const std::string error = errorOf([&] { readMatrixMarketRows(path.toStdString(), 0, 2); });
        QVERIFY2(error.find("counting the entries of 2000000000 declared rows") != std::string::npos, error.c_str());
    }

    void ranksOutOfRangeAreRefused() {
        const std::string path = sharedMatrix("west0479.mtx").toStdString();
        QVERIFY(errorOf([&] { readMatrixMarketRows(path, 2, 2); }).find("rank 2 of 2 is not a rank") != std::string::npos);
        QVERIFY(errorOf([&] { readMatrixMarketRows(path, 0, 0); }).find("rank 0 of 0") != std::string::npos);
    }

    void moreRanksThanRowsLeaveTheLastOnesEmpty() {
        QTemporaryDir dir;
        const std::string path =
            writeTemporary(dir, "tiny.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 1\n2 3 2\n1 2 3\n")
                .toStdString();
        Count held = 0;
        for (int rank = 0; rank < 5; ++rank) {
            const RankRows mine = readMatrixMarketRows(path, rank, 5);
            QCOMPARE(mine.blockStarts.size(), std::size_t(6));
            if (rank >= 2) QCOMPARE(mine.rowBegin, mine.rowEnd);
            held += mine.entries.stored();
        }
        QCOMPARE(held, Count(3));
    }

private:
    // Every small shared matrix read by 1 to 4 ranks: what each rank holds, and where the blocks are cut.
    void smallMatricesByRanks() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("ranks");
        const QFileInfoList files = QDir(testMatricesDir()).entryInfoList({"*.mtx"}, QDir::Files, QDir::Name);
        QVERIFY(files.size() >= 20);
        for (const QFileInfo& file : files) {
            if (file.size() > 1100000) continue;  // the small ones: every one of them twice per rank
            for (const int ranks : {1, 2, 3, 4})
                QTest::addRow("%s, %d ranks", qPrintable(file.fileName()), ranks) << file.filePath() << ranks;
        }
    }
};

QTEST_GUILESS_MAIN(TestMatrixMarketRows)
#include "tst_matrixmarket_rows.moc"
