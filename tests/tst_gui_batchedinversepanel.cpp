// The batch-inverse panel runs a small CPU batch through its job and shows the result and its progress.
#include "batchedinversepanel.h"
#include "core/jobbase.h"
#include "guitesting.h"

#include <QCheckBox>
#include <QLabel>
#include <QProgressBar>
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

    // The bar under the buttons says which backend runs ("cpu (1 of 1): inverting", busy: one call
    // gives no measure) and ends at "done"; before any run it says "idle".
    void progressBarFollowsTheRun() {
        spyglass::widgets::BatchedInversePanel panel;
        auto* bar = panel.findChild<QProgressBar*>(QStringLiteral("progress"));
        QVERIFY(bar);
        QCOMPARE(bar->format(), QStringLiteral("idle"));
        QVERIFY(guitesting::setSpinBoxes(panel, {{"order", 6}, {"batch", 250}}));
        QVERIFY(guitesting::waitForDeviceInfo());
        for (QCheckBox* box : panel.findChildren<QCheckBox*>())
            box->setChecked(box->objectName() == QLatin1String("useCpu"));
        auto* job = panel.findChild<spyglass::app::JobBase*>();
        QVERIFY(job);
        // Connected after the panel's own slot: what the bar shows once each report has arrived.
        QStringList shown;
        connect(job, &spyglass::app::JobBase::progress, this,
                [&] { shown << bar->format() + (bar->maximum() == 0 ? QStringLiteral(" [busy]") : QString()); });
        QVERIFY(guitesting::runAndWait(&panel, &spyglass::widgets::BatchedInversePanel::allRunsFinished, [&panel] { panel.run(); }, 30000));
        QVERIFY2(shown.contains(QStringLiteral("cpu (1 of 1): inverting [busy]")), qPrintable(shown.join(QStringLiteral(" | "))));
        QCOMPARE(bar->format(), QStringLiteral("done"));
        QCOMPARE(bar->value(), 100);
    }
};

QTEST_MAIN(TestGuiBatchedInversePanel)
#include "tst_gui_batchedinversepanel.moc"
