// The parallel Matrix Market reader gives what the one-chunk, one-thread read gives: the same matrix
// for every shared matrix (plain and gzip) and for mutated inputs, and the same error with the same
// line however the body is cut (chunks of a few bytes put chunk edges next to comments, blank lines
// and entries of every kind).
#include "matrixentries.h"
#include "testmatrices.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <QtTest>

#include <zlib.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace spyglass;

namespace {

struct Cut {
    unsigned threads;
    std::size_t chunkBytes;
};

// One thread and one chunk: the serial reading every other cut is compared with.
ReadOptions serialOptions() {
    ReadOptions options;
    options.threads = 1;
    options.chunkBytes = std::numeric_limits<std::size_t>::max() / 2;
    return options;
}

ReadOptions cutOptions(const Cut& cut) {
    ReadOptions options;
    options.threads = cut.threads;
    options.chunkBytes = cut.chunkBytes;
    return options;
}

// Tiny chunks (a line or two each) on a few threads, mid-sized ones, and the default choice.
const std::vector<Cut>& cuts() {
    static const std::vector<Cut> list = {{1, 1}, {2, 1}, {3, 2}, {4, 7}, {2, 13}, {3, 64}, {2, 4096}, {4, 0}, {0, 0}};
    return list;
}

using matrixentries::sameBits;

bool sameMatrix(const Matrix& a, const Matrix& b) { return !matrixentries::matrixDifference(a, b, sameBits); }

// "OK <entries>" or "ERR <message with line>", so results and errors compare alike.
std::string outcome(const std::function<Matrix()>& read, Matrix* matrix) {
    try {
        *matrix = read();
        return "OK " + std::to_string(matrix->stored());
    } catch (const ParseError& error) {
        return std::string("ERR ") + error.what();
    }
}

void writeGzip(const std::string& path, const std::string& text) {
    gzFile file = gzopen(path.c_str(), "wb");
    QVERIFY(file != nullptr);
    QCOMPARE(gzwrite(file, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    QCOMPARE(gzclose(file), Z_OK);
}

// Valid inputs of every layout, field and symmetry, with comments and blank lines in the body.
const char* const kSeeds[] = {
    "%%MatrixMarket matrix coordinate real general\n% c\n3 3 4\n1 1 1.5\n\n2 2 -2\n% mid\n3 1 4e3\n 3 3 1\n",
    "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n2 1 1\n3 3 1\n1 2 1\n1 3 2\n",
    "%%MatrixMarket matrix coordinate complex hermitian\n3 3 3\n2 1 1 2\n1 3 1 1\n3 3 5 0\n",
    "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n\n2\n3\n",
    "%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n",
    "%%MatrixMarket matrix array complex general\n2 2\n1 2\n3 4\n% c\n5 6\n7 8\n",
    "%%MatrixMarket matrix coordinate pattern general\n4 4 3\n1 1\r\n2 2\n4 3\n",
    "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 5\n1 3 -7\n",
};

} // namespace

class TestMatrixMarketParallel : public QObject {
    Q_OBJECT
private slots:
    void everySharedMatrixReadsTheSameWhateverTheCut_data() {
        QTest::addColumn<QString>("file");
        for (const QString& name : QDir(testMatricesDir()).entryList({"*.mtx"}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(name)) << name;
    }
    void everySharedMatrixReadsTheSameWhateverTheCut() {
        QFETCH(QString, file);
        const std::string path = sharedMatrix(qPrintable(file)).toStdString();
        const Matrix serial = readMatrixMarket(path, serialOptions());
        QVERIFY(serial.stored() > 0 || serial.rows * Count(serial.cols) == 0 || file == "empty.mtx");
        for (const Cut& cut : cuts()) {
            if (cut.chunkBytes > 0 && cut.chunkBytes < 8 && QFileInfo(QString::fromStdString(path)).size() > 2000000)
                continue;  // a chunk per line of a multi-MB file proves nothing more, slowly
            QVERIFY2(sameMatrix(readMatrixMarket(path, cutOptions(cut)), serial),
                     qPrintable(QString("threads %1, chunk %2 bytes").arg(cut.threads).arg(cut.chunkBytes)));
        }
        // The same text through gzip streams through the decompressing thread.
        QTemporaryDir dir;
        const std::string gz = (dir.path() + "/m.mtx.gz").toStdString();
        std::ifstream in(path, std::ios::binary);
        writeGzip(gz, std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
        for (const Cut& cut : {Cut{1, 0}, Cut{3, 4096}, Cut{2, 100000}, Cut{0, 0}})
            QVERIFY2(sameMatrix(readMatrixMarket(gz, cutOptions(cut)), serial),
                     qPrintable(QString("gzip, threads %1, chunk %2 bytes").arg(cut.threads).arg(cut.chunkBytes)));
    }

    // Every error case of the single-thread suite, cut every way: the message and line stay.
    void errorsKeepTheirLineWhateverTheCut_data() {
        QTest::addColumn<QString>("text");
        const QString real = "%%MatrixMarket matrix coordinate real general\n";
        auto row = [](const char* name, const QString& text) { QTest::newRow(name) << text; };
        row("truncated", real + "2 2 3\n1 1 1\n2 2 2\n");
        row("truncated mid line", real + "2 2 2\n1 1 1\n2 2");
        row("too many entries", real + "2 2 1\n1 1 1\n2 2 2\n");
        row("too many, then garbage", real + "2 2 1\n1 1 1\n% c\n\nx y z\n");
        row("garbage within the count", real + "2 2 3\n1 1 1\n% c\n\nx y z\n2 2 2\n");
        row("error after blank and comment lines", real + "2 2 2\n1 1 1\n\n% note\n \t\n2 9 1\n");
        row("error after CRLF lines", "%%MatrixMarket matrix coordinate real general\r\n% c\r\n2 2 2\r\n\r\n1 1 1\r\nx 1 1\r\n");
        row("two errors, first wins", real + "3 3 3\n1 1 1\n1 1 x\n\n\n1 9 1\n");
        row("skew diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n");
        row("mirror duplicates lower", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1\n3 3 1\n1 2 1\n");
        row("mirror duplicate beats too many",
            "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n1 2 1\n3 3 1\n");
        row("array too few values", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n% c\n3\n");
        row("array too many values", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n\n5\n");
        row("array two values per line", "%%MatrixMarket matrix array real general\n2 1\n1\n1 2\n");
        row("declared zero", real + "2 2 0\n\n% c\n1 1 1\n");
        row("claims 10^9 in a tiny file", real + "100000 100000 1000000000\n1 1 1\n");
    }
    void errorsKeepTheirLineWhateverTheCut() {
        QFETCH(QString, text);
        const std::string bytes = text.toStdString();
        Matrix unused;
        const std::string serial = outcome([&] { return parseMatrixMarket(bytes, "bad.mtx", serialOptions()); }, &unused);
        QVERIFY2(serial.rfind("ERR bad.mtx:", 0) == 0, serial.c_str());
        QTemporaryDir dir;
        const std::string gz = (dir.path() + "/bad.mtx.gz").toStdString();
        writeGzip(gz, bytes);
        // A mapped file drops parsed pages; the error's line must still come out of them.
        const std::string plain = (dir.path() + "/bad.mtx").toStdString();
        std::ofstream(plain, std::ios::binary) << bytes;
        for (const Cut& cut : cuts()) {
            QCOMPARE(outcome([&] { return parseMatrixMarket(bytes, "bad.mtx", cutOptions(cut)); }, &unused), serial);
            const std::string fromFile = outcome([&] { return readMatrixMarket(plain, cutOptions(cut)); }, &unused);
            QCOMPARE(fromFile.substr(fromFile.find("/bad.mtx:") + 1), serial.substr(4));
            const std::string fromGzip = outcome([&] { return readMatrixMarket(gz, cutOptions(cut)); }, &unused);
            QCOMPARE(fromGzip.substr(fromGzip.find(".gz:") + 3), serial.substr(serial.find(".mtx:") + 4));
        }
    }

    // The chunk that passes the declared count is placed once: chunks still parsing on other threads
    // when it is found must not place it again (that counted its entries twice, and the line, or a
    // negative copy length, depended on which thread finished first).
    void tooManyEntriesGiveTheSameErrorEveryRun_data() {
        QTest::addColumn<QByteArray>("text");
        QByteArray coordinate = "%%MatrixMarket matrix coordinate real general\n4 4 1\n";
        QByteArray array = "%%MatrixMarket matrix array real general\n0 3\n";
        for (int k = 0; k < 200; ++k) {
            coordinate += QByteArray::number(k % 4 + 1) + ' ' + QByteArray::number(k / 50 + 1) + " 0.5\n";
            array += '.' + QByteArray::number(k) + '\n';
        }
        QTest::newRow("coordinate") << coordinate;
        QTest::newRow("array, none declared") << array;
        // The fuzzer's input (CI, 2026-11-23): a comment of NULs and letters, then nine values for none.
        QTest::newRow("fuzz finding") << QByteArray("%%MatrixMarket matrix array real general\n%o") + QByteArray(126, '\0') +
                                             QByteArray(128, 'O') + QByteArray(22, '\0') +
                                             QByteArray("e mWtrix\n0 3\n.646\n.709\n.754\n.276\n.679\n.655\n.162\n.118\n.499\n");
    }
    void tooManyEntriesGiveTheSameErrorEveryRun() {
        QFETCH(QByteArray, text);
        const std::string bytes = text.toStdString();
        Matrix unused;
        const std::string serial = outcome([&] { return parseMatrixMarket(bytes, "m", serialOptions()); }, &unused);
        QVERIFY2(serial.find("more entries than the") != std::string::npos, serial.c_str());
        // The race needs another thread to finish a chunk just after the extra one is found: many runs.
        for (int run = 0; run < 2000; ++run) {
            const Cut cut{3, static_cast<std::size_t>(1 + run % 7)};
            QCOMPARE(outcome([&] { return parseMatrixMarket(bytes, "m", cutOptions(cut)); }, &unused), serial);
        }
    }

    // Random edits of valid inputs (the fuzzer's job, in small): every outcome, matrix or error with
    // its line, is the serial one.
    void mutatedInputsReadTheSameWhateverTheCut() {
        std::mt19937 random(20240917);
        const char alphabet[] = "0123456789 \n%-+.eE\r\tx";
        int errors = 0, matrices = 0;
        for (int round = 0; round < 3000; ++round) {
            std::string text = kSeeds[round % (sizeof kSeeds / sizeof kSeeds[0])];
            for (int edit = 0, edits = 1 + static_cast<int>(random() % 3); edit < edits; ++edit) {
                const std::size_t at = random() % (text.size() + 1);
                const char c = alphabet[random() % (sizeof alphabet - 1)];
                switch (random() % 3) {
                case 0: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c); break;
                case 1: if (at < text.size()) text.erase(at, 1); break;
                default: if (at < text.size()) text[at] = c; break;
                }
            }
            Matrix serialMatrix;
            const std::string serial = outcome([&] { return parseMatrixMarket(text, "m", serialOptions()); }, &serialMatrix);
            (serial[0] == 'E' ? errors : matrices) += 1;
            for (const Cut& cut : {Cut{2, 1}, Cut{3, 5}, Cut{2, 17}}) {
                Matrix cutMatrix;
                const std::string parallel = outcome([&] { return parseMatrixMarket(text, "m", cutOptions(cut)); }, &cutMatrix);
                if (parallel != serial || (serial[0] == 'O' && !sameMatrix(cutMatrix, serialMatrix)))
                    QFAIL(qPrintable(QString("input:\n%1\nserial: %2\ncut %3/%4: %5")
                                         .arg(QString::fromStdString(text), QString::fromStdString(serial))
                                         .arg(cut.threads).arg(cut.chunkBytes).arg(QString::fromStdString(parallel))));
            }
        }
        // Both kinds occur, or the comparison would be one-sided.
        QVERIFY2(errors > 100 && matrices > 100, qPrintable(QString("%1 errors, %2 matrices").arg(errors).arg(matrices)));
    }

    void truncatedGzipStreamNamesTheLineWhereTextEnds() {
        std::string text = "%%MatrixMarket matrix coordinate real general\n1000 1000 20000\n";
        for (int k = 0; k < 20000; ++k) text += std::to_string(k % 1000 + 1) + " " + std::to_string(k / 20 + 1) + " 0.5\n";
        QTemporaryDir dir;
        const std::string gz = (dir.path() + "/t.mtx.gz").toStdString();
        writeGzip(gz, text);
        QFile file(QString::fromStdString(gz));
        QVERIFY(file.open(QIODevice::ReadWrite));
        file.resize(file.size() / 2);
        file.close();
        std::vector<std::int64_t> lines;
        for (const Cut& cut : {Cut{1, 0}, Cut{3, 64}, Cut{2, 4096}}) {
            try {
                readMatrixMarket(gz, cutOptions(cut));
                QFAIL("read a truncated gzip file");
            } catch (const ParseError& error) {
                QVERIFY2(QString::fromStdString(error.problem()).contains("truncated"), error.what());
                lines.push_back(error.line());
            }
        }
        QVERIFY2(lines[0] > 2 && lines[0] < 20002, qPrintable(QString::number(lines[0])));
        QCOMPARE(lines[1], lines[0]);
        QCOMPARE(lines[2], lines[0]);
    }

    void cancelStopsEveryThreadAndProgressEndsAtOne() {
        std::string text = "%%MatrixMarket matrix coordinate real general\n1000 1000 300000\n";
        for (int k = 0; k < 300000; ++k) text += std::to_string(k % 1000 + 1) + " " + std::to_string(k % 997 + 1) + " 1.25\n";
        for (unsigned threads : {1u, 2u, 4u}) {
            std::atomic<bool> cancel{false};
            ReadOptions options;
            options.threads = threads;
            options.chunkBytes = 1 << 16;
            options.cancel = &cancel;
            int calls = 0;
            options.progress = [&](double) {
                if (++calls == 3) cancel = true;
            };
            QVERIFY_THROWS_EXCEPTION(CancelledError, parseMatrixMarket(text, "big", options));
            QCOMPARE(calls, 3);
            std::vector<double> fractions;
            options.cancel = nullptr;
            options.progress = [&](double f) { fractions.push_back(f); };
            QCOMPARE(parseMatrixMarket(text, "big", options).stored(), Count(300000));
            QVERIFY(fractions.size() >= 4);
            QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
            QCOMPARE(fractions.back(), 1.0);
        }
    }
};

QTEST_GUILESS_MAIN(TestMatrixMarketParallel)
#include "tst_matrixmarket_parallel.moc"
