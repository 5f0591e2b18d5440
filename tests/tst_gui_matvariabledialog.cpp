// The dialog that asks which matrix of a .mat file to open (widgets/matvariabledialog.h): one line
// per variable with its description, the first selected, and the chosen line's name handed back.
#include "matvariabledialog.h"

#include <QListWidget>
#include <QtTest>

class TestMatVariableDialog : public QObject {
    Q_OBJECT

private slots:
    void offersEveryVariableAndReturnsTheChosenName() {
        spyglass::widgets::MatVariableDialog dialog(QStringLiteral("/data/several.mat"), {"west0479", "afiro"},
                                                    {"sparse double, 479 x 479", "dense double, 27 x 51"});
        QCOMPARE(dialog.list()->count(), 2);
        QVERIFY(dialog.list()->item(0)->text().contains(QStringLiteral("west0479")));
        QVERIFY(dialog.list()->item(1)->text().contains(QStringLiteral("dense double, 27 x 51")));
        QCOMPARE(dialog.chosenName(), QStringLiteral("west0479"));
        dialog.list()->setCurrentRow(1);
        QCOMPARE(dialog.chosenName(), QStringLiteral("afiro"));
    }
};

QTEST_MAIN(TestMatVariableDialog)
#include "tst_gui_matvariabledialog.moc"
