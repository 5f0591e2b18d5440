// The batch-inverse panel runs a small CPU batch through its job and shows the result.
#include "batchedinversepanel.h"
#include "guitesting.h"

#include <QCheckBox>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QtTest>

class TestGuiBatchedInversePanel : public QObject {
    Q_OBJECT
private slots:
    void smallCpuRunShowsItsSummary() {
        spyglass::widgets::BatchedInversePanel panel;
        QVERIFY(guitesting::setSpinBoxes(panel, {{"order", 6}, {"batch", 250}}));
        // Only the CPU: the test must not depend on a GPU being present.
        QVERIFY(guitesting::waitForDeviceInfo());
        for (QCheckBox* box : panel.findChildren<QCheckBox*>())
            box->setChecked(box->objectName() == QLatin1String("useCpu"));
        QVERIFY(guitesting::runAndWait(&panel, &spyglass::widgets::BatchedInversePanel::allRunsFinished, [&panel] { panel.run(); }, 30000));
        const QString text = panel.findChild<QLabel*>(QStringLiteral("result"))->text();
        QVERIFY2(text.contains(QStringLiteral("250 x 6x6 f32 on cpu")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("0 singular")), qPrintable(text));
        QCOMPARE(panel.resultText(), text);
        QVERIFY(!panel.isRunning());
    }
};

QTEST_MAIN(TestGuiBatchedInversePanel)
#include "tst_gui_batchedinversepanel.moc"
