// MatrixLoader: reads off the GUI thread and reports by signal: a good file loads with the right
// shape and values, a malformed one fails naming the line, Cancel stops a big read, and a second
// load supersedes the first silently.
#include "testfiles.h"
#include "testmatrices.h"
#include "core/containerexport.h"
#include "core/matrixloader.h"

#include "spyglass/container.h"
#include "spyglass/matrixfile.h"
#include "spyglass/matrixmarket.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <random>

using namespace spyglass;
using namespace spyglass::app;

namespace {
// Big enough that reading takes far longer than the cancel round trip.
QString writeBigMatrix(const QTemporaryDir& dir, int entries) {
    const QString path = dir.filePath(QStringLiteral("big.mtx"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return {};
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> index(1, 99991);
    QByteArray chunk = "%%MatrixMarket matrix coordinate real general\n99991 99991 " + QByteArray::number(entries) + "\n";
    for (int e = 0; e < entries; ++e) {
        chunk += QByteArray::number(index(rng)) + ' ' + QByteArray::number(index(rng)) + " 1.25e-3\n";
        if (chunk.size() > (1 << 20)) {
            file.write(chunk);
            chunk.clear();
        }
    }
    file.write(chunk);
    return path;
}
} // namespace

class TestMatrixLoader : public QObject {
    Q_OBJECT
private slots:
    void sharedMatrixLoadsWithItsShapeAndValues() {
        const QString path = sharedMatrix("west0479.mtx");
        const Matrix direct = readMatrixMarket(path.toStdString());
        MatrixLoader loader;
        QSignalSpy finished(&loader, &MatrixLoader::loadFinished);
        QSignalSpy failed(&loader, &MatrixLoader::loadFailed);
        QSignalSpy progress(&loader, &MatrixLoader::loadProgress);
        loader.load(path);
        QVERIFY(loader.isLoading());
        QVERIFY(finished.wait(20000));
        QCOMPARE(failed.count(), 0);
        QVERIFY(!loader.isLoading());
        const auto document = finished.at(0).at(0).value<MatrixDocument>();
        QCOMPARE(document.rows(), direct.rows);
        QCOMPARE(document.cols(), direct.cols);
        QCOMPARE(document.stats().stored, direct.stored());
        QCOMPARE(document.fileName(), QStringLiteral("west0479.mtx"));
        for (Count e = 0; e < direct.stored(); e += 37)
            QCOMPARE(document.cellValue(direct.rowIndex[e], direct.colIndex[e]).value.real(), direct.real[e]);
        double last = 0;
        for (const QList<QVariant>& args : progress) {
            const double fraction = args.at(0).toDouble();
            QVERIFY(fraction >= last && fraction <= 1.0);
            last = fraction;
        }
    }

    void malformedFileFailsWithLineNumberAndKeepsPreviousDocument() {
        QTemporaryDir dir;
        const QString good = dir.filePath(QStringLiteral("good.mtx"));
        const QString bad = dir.filePath(QStringLiteral("bad.mtx"));
        QVERIFY(testfiles::writeFile(good, "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n3 2 -2\n"));
        QVERIFY(testfiles::writeFile(bad, "%%MatrixMarket matrix coordinate real general\n% comment\n3 3 3\n1 1 1.0\n2 x 5\n3 3 1\n"));

        MatrixLoader loader;
        MatrixDocument current;  // what a window shows: replaced only on success
        connect(&loader, &MatrixLoader::loadFinished, this, [&current](const MatrixDocument& d) { current = d; });
        QSignalSpy finished(&loader, &MatrixLoader::loadFinished);
        QSignalSpy failed(&loader, &MatrixLoader::loadFailed);
        loader.load(good);
        QVERIFY(finished.wait(10000));
        loader.load(bad);
        QVERIFY(failed.wait(10000));
        const QString message = failed.at(0).at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("bad.mtx")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral(":5:")), qPrintable(message));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(QFileInfo(current.path()).fileName(), QStringLiteral("good.mtx"));
        QCOMPARE(current.cellValue(2, 1).value.real(), -2.0);
    }

    // An export reopens: the loader decodes the container to the matrix it holds.
    void spyglassExportOpensLikeItsText() {
        QTemporaryDir dir;
        const Matrix original = readMatrixMarket(sharedMatrix("west0479.mtx").toStdString());
        const QString spy = dir.filePath(QStringLiteral("west.spy"));
        exportBitFlag(original, "west0479.mtx", BitFlagOrder::RowMajor, false, spy, "test");
        QCOMPARE(matrixFileKind(spy.toStdString()), MatrixFileKind::Container);
        const Matrix decoded = readContainerMatrix(spy.toStdString());
        MatrixLoader loader;
        QSignalSpy finished(&loader, &MatrixLoader::loadFinished);
        QSignalSpy failed(&loader, &MatrixLoader::loadFailed);
        loader.load(spy);
        QVERIFY(finished.wait(20000));
        QCOMPARE(failed.count(), 0);
        const auto document = finished.at(0).at(0).value<MatrixDocument>();
        QCOMPARE(document.rows(), original.rows);
        QCOMPARE(document.cols(), original.cols);
        QCOMPARE(document.stats().stored, decoded.stored());
        QVERIFY(document.matrix()->rowIndex == decoded.rowIndex);
        QVERIFY(document.matrix()->colIndex == decoded.colIndex);
        for (Count e = 0; e < original.stored(); e += 17)
            QCOMPARE(document.cellValue(original.rowIndex[e], original.colIndex[e]).value.real(), original.real[e]);
    }

    // A damaged export fails like a malformed text: the file and the byte are named.
    void damagedExportFailsNamingFileAndByte() {
        QTemporaryDir dir;
        const Matrix original = readMatrixMarket(sharedMatrix("olm1000.mtx").toStdString());
        const QString spy = dir.filePath(QStringLiteral("olm.spy"));
        exportSegmentedDia(original, "olm1000.mtx", SegmentedDiaOptions{}, spy, "test");
        QFile file(spy);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray good = file.readAll();
        file.close();
        const QString cut = dir.filePath(QStringLiteral("cut.spy"));
        QVERIFY(testfiles::writeFile(cut, good.left(good.size() / 2)));
        QByteArray flippedBytes = good;
        flippedBytes[good.size() / 2] = char(flippedBytes[good.size() / 2] ^ 0x10);
        const QString flipped = dir.filePath(QStringLiteral("flipped.spy"));
        QVERIFY(testfiles::writeFile(flipped, flippedBytes));
        for (const auto& [path, problem] : {std::pair{cut, QStringLiteral("truncated")}, std::pair{flipped, QStringLiteral("checksum")}}) {
            MatrixLoader loader;
            QSignalSpy failed(&loader, &MatrixLoader::loadFailed);
            loader.load(path);
            QVERIFY(failed.wait(10000));
            const QString message = failed.at(0).at(0).toString();
            QVERIFY2(message.contains(QFileInfo(path).fileName() + QStringLiteral(": byte ")), qPrintable(message));
            QVERIFY2(message.contains(problem), qPrintable(message));
        }
    }

    void missingFileFailsNamingIt() {
        MatrixLoader loader;
        QSignalSpy failed(&loader, &MatrixLoader::loadFailed);
        loader.load(QStringLiteral("/nonexistent/folder/none.mtx"));
        QVERIFY(failed.wait(10000));
        QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("none.mtx")));
    }

    void cancelStopsABigRead() {
        QTemporaryDir dir;
        const QString big = writeBigMatrix(dir, 3'000'000);
        QVERIFY(!big.isEmpty());
        MatrixLoader loader;
        QSignalSpy finished(&loader, &MatrixLoader::loadFinished);
        QSignalSpy cancelled(&loader, &MatrixLoader::loadCancelled);
        QSignalSpy progress(&loader, &MatrixLoader::loadProgress);
        loader.load(big);
        QVERIFY(progress.wait(20000));  // the read is under way
        loader.cancel();
        QVERIFY(cancelled.wait(20000));
        QCOMPARE(finished.count(), 0);
        QVERIFY(!loader.isLoading());
    }

    void secondLoadSupersedesTheFirstSilently() {
        QTemporaryDir dir;
        const QString big = writeBigMatrix(dir, 2'000'000);
        const QString small = sharedMatrix("olm1000.mtx");
        MatrixLoader loader;
        QSignalSpy finished(&loader, &MatrixLoader::loadFinished);
        QSignalSpy cancelled(&loader, &MatrixLoader::loadCancelled);
        QSignalSpy failed(&loader, &MatrixLoader::loadFailed);
        loader.load(big);
        loader.load(small);
        QCOMPARE(loader.loadingPath(), small);
        QVERIFY(finished.wait(20000));
        QTest::qWait(300);  // room for a late signal of the superseded read, which must not come
        QCOMPARE(finished.count(), 1);
        QCOMPARE(cancelled.count(), 0);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.at(0).at(0).value<MatrixDocument>().fileName(), QStringLiteral("olm1000.mtx"));
    }

    void destroyingTheLoaderDuringAReadCancelsItAndSendsNothing() {
        QTemporaryDir dir;
        const QString big = writeBigMatrix(dir, 1'000'000);
        // The time a whole read takes here, to tell "cancelled" from "waited until the read ended".
        QElapsedTimer clock;
        double fullReadMs = 0;
        {
            MatrixLoader loader;
            QSignalSpy finished(&loader, &MatrixLoader::loadFinished);
            clock.start();
            loader.load(big);
            QVERIFY(finished.wait(60000));
            fullReadMs = double(clock.nsecsElapsed()) / 1e6;
        }
        auto loader = std::make_unique<MatrixLoader>();
        // Every signal the loader could still send lands here; the receiver outlives the loader.
        QObject receiver;
        int signalsAfterDestruction = 0;
        bool destroying = false;
        const auto count = [&] { signalsAfterDestruction += destroying ? 1 : 0; };
        connect(loader.get(), &MatrixLoader::loadProgress, &receiver, count);
        connect(loader.get(), &MatrixLoader::loadFinished, &receiver, count);
        connect(loader.get(), &MatrixLoader::loadFailed, &receiver, count);
        connect(loader.get(), &MatrixLoader::loadCancelled, &receiver, count);
        QSignalSpy progress(loader.get(), &MatrixLoader::loadProgress);
        QSignalSpy finished(loader.get(), &MatrixLoader::loadFinished);
        loader->load(big);
        QVERIFY(progress.wait(20000));  // the read is under way on its thread ...
        QVERIFY(loader->isLoading());
        QCOMPARE(finished.count(), 0);  // ... and not done yet
        destroying = true;
        clock.restart();
        loader.reset();  // cancels the read and waits for its thread
        const double destroyMs = double(clock.nsecsElapsed()) / 1e6;
        QTest::qWait(300);  // room for a late queued signal, which must not come
        QCOMPARE(signalsAfterDestruction, 0);
        // Waiting out the read instead of cancelling it would take about the rest of a full read.
        QVERIFY2(destroyMs < 0.5 * fullReadMs,
                 qPrintable(QStringLiteral("destruction took %1 ms, a whole read %2 ms").arg(destroyMs).arg(fullReadMs)));
    }
};

QTEST_GUILESS_MAIN(TestMatrixLoader)
#include "tst_matrixloader.moc"
