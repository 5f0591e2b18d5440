// The backend list always offers the CPU reference; a missing GPU is reported, never thrown.
#include "spyglass/backend.h"

#include <QtTest>

#include <string>
#include <utility>

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
        // The default without a GPU at configure time (CMakeLists.txt), as compiled in: Ampere to
        // Hopper by SASS (Orin's 8.7 by 8.6's), Blackwell by sm_90 PTX; Turing is named.
        const std::string fat = "80-real,86-real,89-real,90-real,90-virtual";
        for (const auto& [major, minor] : {std::pair{8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {12, 0}})
            QVERIFY2(kernelImageMismatch(fat, major, minor, "GPU").empty(), std::to_string(major * 10 + minor).c_str());
        const std::string turing = kernelImageMismatch(fat, 7, 5, "T4");
        QVERIFY2(turing.find("built for sm_80, sm_86, sm_89, sm_90, and this GPU (T4) is sm_75") != std::string::npos, turing.c_str());
    }
};

QTEST_GUILESS_MAIN(TestBackend)
#include "tst_backend.moc"
