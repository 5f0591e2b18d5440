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
    void aGpuOutsideTheBuiltArchitecturesIsNamed() {
        using spyglass::kernelImageMismatch;
        // sm_90 SASS runs on 9.0 only (not on an older 8.6, not across majors).
        QVERIFY(kernelImageMismatch("90", 9, 0, "H100").empty());
        const std::string ampere = kernelImageMismatch("90", 8, 6, "NVIDIA RTX A6000");
        QVERIFY2(ampere.find("built for sm_90") != std::string::npos && ampere.find("sm_86") != std::string::npos &&
                     ampere.find("-DCMAKE_CUDA_ARCHITECTURES=native") != std::string::npos,
                 ampere.c_str());
        // A same-major SASS runs on a higher minor; PTX runs on anything newer; "-real" has no PTX.
        QVERIFY(kernelImageMismatch("80", 8, 9, "L40S").empty());
        QVERIFY(kernelImageMismatch("80,86", 8, 6, "A6000").empty());
        QVERIFY(kernelImageMismatch("80;90-virtual", 10, 0, "B200").empty());
        QVERIFY(!kernelImageMismatch("90-real", 10, 0, "B200").empty());
        QVERIFY(!kernelImageMismatch("89-real", 8, 6, "A6000").empty());
        QVERIFY(kernelImageMismatch("native", 7, 5, "T4").empty());  // nothing to judge before trying
    }
};

QTEST_GUILESS_MAIN(TestBackend)
#include "tst_backend.moc"
