// The CUDA runtime layer: RAII buffers move data unchanged, events time the GPU plausibly, the memory
// cap and real allocation failures both become OutOfMemoryError and leave the device usable, and the
// device query reports sane facts. Skips without a device.
#include "spyglass/backend.h"
#include "spyglass/devicecheck.h"
#include "spyglass/error.h"

#include <QtTest>

#include <random>

using namespace spyglass;

class TestCudaRuntime : public QObject {
    Q_OBJECT

private slots:
    void init() {
        if (!cudaDeviceInfo().present) QSKIP(cudaDeviceInfo().reason.c_str());
        setDeviceMemoryCap(0);
    }
    void cleanup() { setDeviceMemoryCap(0); }

    void deviceBufferRoundTripKeepsOddSizedRandomArraysBitExact() {
        std::mt19937 rng(7);
        std::normal_distribution<double> dist(0.0, 1e3);
        for (std::size_t count : {std::size_t(1), std::size_t(3), std::size_t(1000003)}) {
            std::vector<double> values(count);
            for (auto& v : values) v = dist(rng);
            QVERIFY(devicecheck::roundTripThroughDevice(values) == values);
            std::vector<float> floats(values.begin(), values.end());
            QVERIFY(devicecheck::roundTripThroughDevice(floats) == floats);
        }
        QVERIFY(devicecheck::roundTripThroughDevice(std::vector<float>{}).empty());
    }

    void eventTimerMeasuresSpinKernelDuration() {
        // The kernel spins on the global nanosecond timer; events must see at least that long and,
        // on an idle device, not wildly longer (launch overhead is microseconds).
        for (double wanted : {2.0, 10.0}) {
            const double measured = devicecheck::timeSpinKernelMs(wanted);
            QVERIFY2(measured >= 0.95 * wanted && measured < 2.0 * wanted + 5.0,
                     qPrintable(QString("asked %1 ms, events measured %2 ms").arg(wanted).arg(measured)));
        }
    }

    void eventTimerGivesPlausibleCopyBandwidth() {
        const std::size_t bytes = std::size_t(256) << 20;
        const double ms = devicecheck::timeDeviceCopyMs(bytes);
        // A device-to-device copy reads and writes every byte. Anything from a small laptop GPU (~50 GB/s)
        // to beyond HBM3e (<10 TB/s) is plausible; outside that the timer is wrong.
        const double gbPerSecond = 2.0 * bytes / (ms * 1e6);
        QVERIFY2(gbPerSecond > 50.0 && gbPerSecond < 10000.0, qPrintable(QString("%1 GB/s").arg(gbPerSecond)));
    }

    void memoryCapRefusesLargerBufferAndDeviceStillWorks() {
        setDeviceMemoryCap(std::size_t(1) << 20);
        QVERIFY_THROWS_EXCEPTION(OutOfMemoryError, devicecheck::allocateAndTouch(std::size_t(2) << 20));
        // Below the cap is fine, and the refused request left nothing counted against the cap.
        devicecheck::allocateAndTouch(std::size_t(1) << 19);
        devicecheck::allocateAndTouch(std::size_t(1) << 19);
        setDeviceMemoryCap(0);
        const std::vector<double> values{1.5, -2.25, 3.0};
        QVERIFY(devicecheck::roundTripThroughDevice(values) == values);
    }

    void impossibleAllocationThrowsOutOfMemoryAndDeviceStillWorks() {
        QVERIFY_THROWS_EXCEPTION(OutOfMemoryError, devicecheck::allocateAndTouch(std::size_t(1) << 50));  // 1 PiB
        const std::vector<float> values{1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
        QVERIFY(devicecheck::roundTripThroughDevice(values) == values);
    }

    void deviceInfoFieldsArePlausible() {
        const DeviceInfo info = cudaDeviceInfo();
        QVERIFY(info.present);
        QVERIFY(info.reason.empty());
        QVERIFY(!info.name.empty());
        QVERIFY(info.computeMajor >= 5);
        QVERIFY(info.computeMinor >= 0 && info.computeMinor < 10);
        QVERIFY(info.multiprocessors > 0 && info.multiprocessors < 10000);
        QVERIFY(info.totalMemory >= (std::size_t(1) << 30));
        QVERIFY(info.freeMemory > 0 && info.freeMemory <= info.totalMemory);
        QVERIFY(info.l2CacheBytes > 0 && info.l2CacheBytes < info.totalMemory);
        QVERIFY(info.runtimeVersion >= 11000);
        QVERIFY(info.driverVersion >= 11000);
        QVERIFY(QString::fromStdString(backendSummary()).contains(QString::fromStdString(info.name)));
    }
};

QTEST_GUILESS_MAIN(TestCudaRuntime)
#include "tst_cuda_runtime.moc"
