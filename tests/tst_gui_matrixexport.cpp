// File > Export Matrix As…: the open matrix written as Matrix Market (plain and gzip), MATLAB .mat,
// SciPy .npz and NumPy .npy reads back to the same entries; a folder that does not exist fails with
// its path named, and the action is off without a matrix. A file that reads back to other entries
// (one value changed between writing and reading back, the checked writer's test hook) is refused
// and the file already there stays as it was.
#include "guitesting.h"
#include "windowsuite.h"
#include "matrixentries.h"
#include "testmatrices.h"

#include "core/checkedwrite.h"
#include "gui/mainwindow.h"
#include "maincontext.h"
#include "matrixexportaction.h"

#include "spyglass/convert.h"
#include "spyglass/container.h"
#include "spyglass/matrixfile.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace guitesting;

namespace {
// The entries whose value is not zero: a dense .npy stores every cell, the sparse formats only entries.
CsrMatrix<double> nonzerosOf(const Matrix& m) {
    return cooToCsr(matrixentries::nonzeros(toCoo<double>(expandSymmetry(m))));
}
} // namespace

class TestGuiMatrixExport : public guitesting::WindowSuite {
    Q_OBJECT

private slots:
    void everyFormatReadsBackToTheOpenMatrix() {
        auto* action = window().findChild<widgets::MatrixExportAction*>(QStringLiteral("exportMatrixAction"));
        QVERIFY(action);
        QVERIFY(!action->isEnabled());  // nothing open yet
        QVERIFY(openAndWait(window(), sharedMatrix("west0479.mtx")));
        QVERIFY(action->isEnabled());
        const CsrMatrix<double> original = nonzerosOf(*window().context().document().matrix());
        QVERIFY(original.nnz() > 1000);
        for (const char* name : {"w.mtx", "w.mtx.gz", "w.mat", "w.npz", "w.npy"}) {
            const QString path = m_dir.filePath(QString::fromLatin1(name));
            QSignalSpy finished(action, &widgets::MatrixExportAction::exportFinished);
            QVERIFY(action->exportTo(path));
            QVERIFY(!action->exportTo(path));  // one write at a time
            QVERIFY2(finished.wait(30000), name);
            const CsrMatrix<double> back = nonzerosOf(readMatrixFile(path.toStdString()));
            QVERIFY2(back.rowPtr == original.rowPtr && back.colIndex == original.colIndex, name);
            QVERIFY2(back.values == original.values, name);
        }
        QSignalSpy failed(action, &widgets::MatrixExportAction::exportFailed);
        QVERIFY(action->exportTo(m_dir.filePath(QStringLiteral("missing-folder/w.mat"))));
        QVERIFY(failed.wait(30000));
        QVERIFY2(failed.first().first().toString().contains(QStringLiteral("missing-folder")),
                 qPrintable(failed.first().first().toString()));
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("missing-folder"))));

        // A valid Matrix Market file with one value off by one: it parses, so only the comparison
        // with the open matrix can refuse it.
        const QString path = m_dir.filePath(QStringLiteral("w.mtx"));
        const std::string before = readFileBytes(path.toStdString());
        app::testing::setCheckedWriteTamper([](const std::string& temp) {
            Matrix m = readMatrixFile(temp);
            m.real.at(m.real.size() / 2) += 1;
            writeMatrixMarket(temp, m);
        });
        QSignalSpy refused(action, &widgets::MatrixExportAction::exportFailed);
        QVERIFY(action->exportTo(path));
        const bool arrived = refused.wait(30000);
        app::testing::setCheckedWriteTamper({});
        QVERIFY(arrived);
        QVERIFY2(refused.first().first().toString().contains(QStringLiteral("does not read back")),
                 qPrintable(refused.first().first().toString()));
        QVERIFY(readFileBytes(path.toStdString()) == before);
    }
};

QTEST_MAIN(TestGuiMatrixExport)
#include "tst_gui_matrixexport.moc"
#include "moc_windowsuite.cpp"
