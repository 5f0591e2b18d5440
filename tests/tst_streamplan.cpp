// The streamed batches' plan (spyglass/streamplan.h, issue #32): the chunk size from the copy model,
// the cut over the GPUs, and the choice of fewer GPUs when more would not be faster. Plain
// arithmetic on given figures: what the GPU path decides with the figures it measures.
#include "spyglass/streamplan.h"

#include <QtTest>

#include <cmath>

using namespace spyglass;

class TestStreamPlan : public QObject {
    Q_OBJECT

private slots:
    void init() { clearStreamRuns(); }

    void chunkIsTheModelsOptimumWithinBounds() {
        // 10 us a chunk at 50 GB/s over a 256 MB share: sqrt(256e6 * 1e-5 * 50e9 / 2) = 8 MB.
        const CopyModel model{0.010, 50};
        const std::size_t c = modelChunkBytes(256e6, model);
        QVERIFY(std::abs(double(c) - 8e6) < 1e4);
        // The optimum balances the per-chunk overhead with the unoverlapped first and last chunk:
        // both sides of it take longer.
        auto total = [&](double chunk) { return 256e6 / chunk * model.overheadMs + 2 * chunk / (model.gbPerSecond * 1e6); };
        QVERIFY(total(double(c)) <= total(double(c) / 2));
        QVERIFY(total(double(c)) <= total(double(c) * 2));
        // Tiny overheads or shares still give chunks of several MB; huge ones stay bounded.
        QCOMPARE(modelChunkBytes(256e6, CopyModel{0.0, 50}), kStreamChunkMinBytes);
        QCOMPARE(modelChunkBytes(1e6, model), kStreamChunkMinBytes);
        QCOMPARE(modelChunkBytes(1e12, CopyModel{1.0, 50}), kStreamChunkMaxBytes);
        // Nothing measured: the upper bound (the order of the former fixed 32 MB).
        QCOMPARE(modelChunkBytes(256e6, CopyModel{}), kStreamChunkMaxBytes);
    }

    void cutCoversTheBatchWithinMemory() {
        const CopyModel model{0.010, 50};
        // 10^6 8x8 f32 on 2 GPUs: 256 B a matrix each way.
        const StreamCut cut = cutStream(1000000, 0, 2, 256, 516, std::size_t(1) << 34, 3, model);
        QVERIFY(cut.chunk * 256 >= std::int64_t(kStreamChunkMinBytes));
        QVERIFY(cut.chunk * 256 <= std::int64_t(kStreamChunkMaxBytes));
        QCOMPARE(cut.chunks, 2 * int((500000 + cut.chunk - 1) / cut.chunk));
        // Asked for: taken as is; a batch that does not divide counts its short last chunks.
        const StreamCut asked = cutStream(3001, 400, 2, 1024, 3000, std::size_t(1) << 34, 3, model);
        QCOMPARE(asked.chunk, std::int64_t(400));
        QCOMPARE(asked.chunks, 4 + 4);  // shares of 1501 and 1500
        // A memory budget that holds 10 matrices per slot wins over the model; never below one.
        QCOMPARE(cutStream(1000, 0, 1, 256, 100, 3000, 3, model).chunk, std::int64_t(10));
        QCOMPARE(cutStream(1000, 0, 1, 256, 100, 10, 3, model).chunk, std::int64_t(1));
        // Never more than a share.
        QCOMPARE(cutStream(5, 0, 2, 256, 100, std::size_t(1) << 30, 3, model).chunk, std::int64_t(3));
        QCOMPARE(cutStream(0, 0, 2, 256, 100, std::size_t(1) << 30, 3, model).chunks, 0);
    }

    void predictionIsLinkOrKernelBound() {
        // 512 MB both ways; link 90 GB/s on one GPU, 150 on two.
        const std::vector<double> link{90, 150};
        const std::vector<double> linkBound = predictStreamMs(link, 512e6, 0.3, 0.2);
        QVERIFY(std::abs(linkBound[0] - (512e6 / 90e6 + 0.2)) < 1e-9);
        QVERIFY(std::abs(linkBound[1] - (512e6 / 150e6 + 0.2)) < 1e-9);
        // Kernels of 40 ms: shared by the GPUs, longer than the copies.
        const std::vector<double> kernelBound = predictStreamMs(link, 512e6, 40, 0);
        QCOMPARE(kernelBound[0], 40.0);
        QCOMPARE(kernelBound[1], 20.0);
    }

    void fewerGpusWhenTheLinkIsShared() {
        // Two GPUs behind one host link: the same rate with two as with one.
        const std::vector<double> link{90, 91};
        const StreamGpuChoice choice = chooseStreamGpus(2, predictStreamMs(link, 512e6, 0.3, 0.2), {0, 0}, link);
        QCOMPARE(choice.gpus, 1);
        QVERIFY(choice.reason.find("2 GPUs asked, 1 used: the host link is the bound") == 0);
        // Two links: both GPUs.
        const std::vector<double> two{90, 170};
        const StreamGpuChoice both = chooseStreamGpus(2, predictStreamMs(two, 512e6, 0.3, 0.2), {0, 0}, two);
        QCOMPARE(both.gpus, 2);
        QVERIFY(both.reason.empty());
        // A shared link but kernels that dominate: the GPUs share the kernels, both are used.
        const StreamGpuChoice compute = chooseStreamGpus(2, predictStreamMs(link, 512e6, 40, 0.2), {0, 0}, link);
        QCOMPARE(compute.gpus, 2);
    }

    void measurementWinsOverTheModel() {
        const std::vector<double> link{90, 170};
        const std::vector<double> model = predictStreamMs(link, 512e6, 0.3, 0.2);
        // The model favours two GPUs, but this batch ran slower on two (overheads the model does not
        // see): one GPU, and the reason quotes the measurements.
        const StreamGpuChoice measured = chooseStreamGpus(2, model, {10.15, 11.53}, link);
        QCOMPARE(measured.gpus, 1);
        QVERIFY(measured.reason.find("measured earlier") != std::string::npos);
        // Faster by less than the margin: fewer GPUs; by more: all of them.
        QCOMPARE(chooseStreamGpus(2, model, {10.0, 9.9}, link).gpus, 1);
        QCOMPARE(chooseStreamGpus(2, model, {10.0, 7.0}, link).gpus, 2);
        // One GPU asked: nothing to choose.
        QCOMPARE(chooseStreamGpus(1, {5.0}, {}, {90}).gpus, 1);
        // Of four, the fewest that four do not beat.
        QCOMPARE(chooseStreamGpus(4, {40, 21, 14, 13.9}, {}, {90, 90, 90, 90}).gpus, 3);
    }

    void historyCountsWarmRunsOnly() {
        const std::string key = "inverse 4-byte 8x8 test";
        QCOMPARE(streamRunWallMs(key, 2, 1000), 0.0);
        recordStreamRun(key, 2, 1000, 50, 2);  // cold: counted, not used
        QCOMPARE(streamRunWallMs(key, 2, 1000), 0.0);
        QCOMPARE(streamRunKernelMs(key, 1000), 2.0);
        recordStreamRun(key, 2, 1000, 12, 2);
        QCOMPARE(streamRunWallMs(key, 2, 2000), 24.0);  // per matrix, scaled to the batch
        recordStreamRun(key, 2, 1000, 14, 2);           // the best warm run stands
        QCOMPARE(streamRunWallMs(key, 2, 1000), 12.0);
        QCOMPARE(streamRunWallMs(key, 1, 1000), 0.0);
        QCOMPARE(streamRunWallMs("svd 4-byte 16x16 test", 2, 1000), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestStreamPlan)
#include "tst_streamplan.moc"
