// The backend list always offers the CPU reference; a missing GPU is reported, never thrown.
#include "spyglass/backend.h"

#include <QtTest>

class TestBackend : public QObject {
    Q_OBJECT
private slots:
    void referenceBackendIsAlwaysAvailable() {
        const auto backends = spyglass::availableBackends();
        QVERIFY(!backends.empty());
        QCOMPARE(backends.front().kind, spyglass::BackendKind::Reference);
        QVERIFY(backends.front().available);
    }
    void missingDeviceIsAStateWithAReason() {
        const spyglass::DeviceInfo device = spyglass::cudaDeviceInfo();
        if (device.present) {
            QVERIFY(!device.name.empty());
            QVERIFY(device.multiprocessors > 0);
            QVERIFY(device.totalMemory > 0);
        } else {
            QVERIFY(!device.reason.empty());
        }
        QVERIFY(!spyglass::backendSummary().empty());
    }
};

QTEST_GUILESS_MAIN(TestBackend)
#include "tst_backend.moc"
