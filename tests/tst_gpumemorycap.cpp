// The user's GPU memory cap (SPYGLASS_GPU_MEMORY_CAP, --gpu-memory-cap) and the text users see for a
// device error, without a GPU: byte sizes are parsed exactly or refused, the option beats the
// variable, a bad value names where it came from and changes nothing, both programs accept the
// option before or after the command, and a GPU out-of-memory error reads "GPU out of memory: ..."
// first, the source place last. What the cap does to the GPU methods is tst_cuda_memorycap.
#include "clitesting.h"
#include "core/errortext.h"
#include "core/gpumemorycap.h"
#include "spyglass/backend.h"
#include "spyglass/error.h"

#include <QtTest>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

using namespace spyglass;

class TestGpuMemoryCap : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_cli, m_gui;

    using Result = clitesting::CliResult<>;

    Result run(const QString& program, const QStringList& args, const QString& capVariable = QString()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QString::fromLatin1(app::kGpuMemoryCapVariable));
        if (!capVariable.isNull()) env.insert(QString::fromLatin1(app::kGpuMemoryCapVariable), capVariable);
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        return clitesting::runProgram(program, args, env, 60000);
    }

    QString writeSmallMatrix() {
        return clitesting::writeBytes(m_dir.filePath(QStringLiteral("small.mtx")),
                                      QByteArray("%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 2\n2 2 3\n3 3 4\n1 3 1\n"));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const QString app = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/");
        if (QFileInfo(app + QStringLiteral("spyglass-cli")).isExecutable()) m_cli = app + QStringLiteral("spyglass-cli");
        if (QFileInfo(app + QStringLiteral("spyglass")).isExecutable()) m_gui = app + QStringLiteral("spyglass");
        qunsetenv(app::kGpuMemoryCapVariable);
    }
    void cleanup() {
        qunsetenv(app::kGpuMemoryCapVariable);
        setDeviceMemoryCap(0);
    }

    void byteSizesAreParsedExactly_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qulonglong>("bytes");
        QTest::newRow("plain") << "1048576" << qulonglong(1048576);
        QTest::newRow("zero is no cap") << "0" << qulonglong(0);
        QTest::newRow("one byte") << "1" << qulonglong(1);
        QTest::newRow("bytes suffix") << "512B" << qulonglong(512);
        QTest::newRow("K") << "512K" << qulonglong(512) * 1024;
        QTest::newRow("k lower case") << "3k" << qulonglong(3072);
        QTest::newRow("MiB") << "64MiB" << (qulonglong(64) << 20);
        QTest::newRow("G with space") << " 2 G " << (qulonglong(2) << 30);
        QTest::newRow("GB") << "1GB" << (qulonglong(1) << 30);
        QTest::newRow("T") << "1T" << (qulonglong(1) << 40);
        QTest::newRow("largest") << "18446744073709551615" << qulonglong(18446744073709551615ull);
    }
    void byteSizesAreParsedExactly() {
        QFETCH(QString, text);
        QFETCH(qulonglong, bytes);
        const std::optional<std::uint64_t> parsed = app::parseByteSize(text);
        QVERIFY2(parsed.has_value(), qPrintable(text));
        QCOMPARE(qulonglong(*parsed), bytes);
    }

    void badByteSizesAreRefused_data() {
        QTest::addColumn<QString>("text");
        for (const char* text : {"", " ", "-1", "1.5M", "64X", "M", "0x100", "1e6", "12 34", "64MM", "18446744073709551616",
                                 "16777216T", "1 MiBs"})
            QTest::newRow(text[0] ? text : "empty") << QString::fromLatin1(text);
    }
    void badByteSizesAreRefused() {
        QFETCH(QString, text);
        QVERIFY2(!app::parseByteSize(text).has_value(), qPrintable(text));
    }

    void capsAreDescribedReadably() {
        QCOMPARE(app::describeGpuMemoryCap(0), QStringLiteral("no cap"));
        QCOMPARE(app::describeGpuMemoryCap(1), QStringLiteral("1 bytes"));
        QCOMPARE(app::describeGpuMemoryCap(1536), QStringLiteral("1.50 KiB"));
        QCOMPARE(app::describeGpuMemoryCap(std::uint64_t(64) << 20), QStringLiteral("64.0 MiB"));
        QCOMPARE(app::describeGpuMemoryCap(std::uint64_t(3) << 30), QStringLiteral("3.00 GiB"));
    }

    void optionBeatsVariableAndBadValuesChangeNothing() {
        QVERIFY(app::applyGpuMemoryCap(std::nullopt).isEmpty());
        QCOMPARE(deviceMemoryCap(), std::size_t(0));
        qputenv(app::kGpuMemoryCapVariable, "2M");
        QVERIFY(app::applyGpuMemoryCap(std::nullopt).isEmpty());
        QCOMPARE(deviceMemoryCap(), std::size_t(2) << 20);
        QVERIFY(app::applyGpuMemoryCap(QStringLiteral("4096")).isEmpty());
        QCOMPARE(deviceMemoryCap(), std::size_t(4096));

        const QString badOption = app::applyGpuMemoryCap(QStringLiteral("lots"));
        QVERIFY2(badOption.contains(QLatin1String("--gpu-memory-cap 'lots'")), qPrintable(badOption));
        QCOMPARE(deviceMemoryCap(), std::size_t(4096));
        qputenv(app::kGpuMemoryCapVariable, "-5");
        const QString badVariable = app::applyGpuMemoryCap(QStringLiteral("1M"));
        QVERIFY2(badVariable.contains(QLatin1String("SPYGLASS_GPU_MEMORY_CAP='-5'")), qPrintable(badVariable));
        QCOMPARE(deviceMemoryCap(), std::size_t(4096));
        qunsetenv(app::kGpuMemoryCapVariable);
        QVERIFY(app::applyGpuMemoryCap(QStringLiteral("0")).isEmpty());
        QCOMPARE(deviceMemoryCap(), std::size_t(0));
    }

    void gpuOutOfMemoryReadsFirstAndThePlaceLast() {
        const OutOfMemoryError device(std::string("GPU out of memory: a device allocation of 800 bytes exceeds the memory cap"),
                                      "/work/x/gpu/src/cuda/device_buffer.h", 29);
        QCOMPARE(app::errorText(device), QStringLiteral("GPU out of memory: a device allocation of 800 bytes exceeds the "
                                                        "memory cap (at device_buffer.h:29)"));
        // The raw what() keeps the place first (logs, other callers).
        QVERIFY(QString::fromUtf8(device.what()).startsWith(QLatin1String("/work/x/gpu/src/cuda/device_buffer.h:29: GPU")));
        const InputError input("a.mtx:3: bad entry");
        QCOMPARE(app::errorText(input), QStringLiteral("a.mtx:3: bad entry"));
    }

    void cliAcceptsTheCapBeforeOrAfterTheCommandAndComputesTheSame() {
        if (m_cli.isEmpty()) QSKIP("spyglass-cli is not built next to the tests");
        const QString a = writeSmallMatrix();
        const QStringList spmv{QStringLiteral("spmv"), a, QStringLiteral("--format"), QStringLiteral("csr")};
        const Result plain = run(m_cli, spmv);
        QCOMPARE(plain.exitCode, 0);
        QVERIFY2(!plain.err.contains("GPU memory cap"), plain.err.constData());
        // A CPU run never touches device memory: identical output under any cap.
        const Result before = run(m_cli, QStringList{QStringLiteral("--gpu-memory-cap"), QStringLiteral("1M")} + spmv);
        const Result after = run(m_cli, spmv + QStringList{QStringLiteral("--gpu-memory-cap=1M")});
        const Result variable = run(m_cli, spmv, QStringLiteral("1M"));
        for (const Result* r : {&before, &after, &variable}) {
            QCOMPARE(r->exitCode, 0);
            QCOMPARE(r->out, plain.out);
            QVERIFY2(r->err.contains("GPU memory cap: 1.00 MiB"), r->err.constData());
        }
    }

    void cliRefusesABadCapBeforeDoingAnything() {
        if (m_cli.isEmpty()) QSKIP("spyglass-cli is not built next to the tests");
        const QString a = writeSmallMatrix();
        const Result option = run(m_cli, {QStringLiteral("info"), a, QStringLiteral("--gpu-memory-cap"), QStringLiteral("huge")});
        QCOMPARE(option.exitCode, 2);
        QVERIFY2(option.err.contains("--gpu-memory-cap 'huge' is not a byte count"), option.err.constData());
        QVERIFY(option.out.isEmpty());
        const Result variable = run(m_cli, {QStringLiteral("info"), a}, QStringLiteral("12.5G"));
        QCOMPARE(variable.exitCode, 2);
        QVERIFY2(variable.err.contains("SPYGLASS_GPU_MEMORY_CAP='12.5G'"), variable.err.constData());
        QVERIFY(variable.out.isEmpty());
        const Result missing = run(m_cli, {QStringLiteral("info"), a, QStringLiteral("--gpu-memory-cap")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.contains("--gpu-memory-cap needs a value"), missing.err.constData());
        const Result help = run(m_cli, {QStringLiteral("--help")});
        QVERIFY2(help.out.contains("--gpu-memory-cap BYTES"), help.out.constData());
    }

    void cliCudaUnderACapWithoutDeviceStillSaysCuda() {
        if (m_cli.isEmpty()) QSKIP("spyglass-cli is not built next to the tests");
        if (cudaDeviceInfo().present) QSKIP("a CUDA device is present (tst_cuda_memorycap covers this)");
        const QString a = writeSmallMatrix();
        const Result r = run(m_cli, {QStringLiteral("--gpu-memory-cap"), QStringLiteral("1"), QStringLiteral("spmv"), a,
                                     QStringLiteral("--backend"), QStringLiteral("cuda")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.toLower().contains("cuda"), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    void guiRefusesABadCapAndNamesIt() {
        if (m_gui.isEmpty()) QSKIP("the spyglass GUI is not built next to the tests");
        const Result option = run(m_gui, {QStringLiteral("--gpu-memory-cap=-1")});
        QCOMPARE(option.exitCode, 2);
        QVERIFY2(option.err.contains("--gpu-memory-cap '-1' is not a byte count"), option.err.constData());
        const Result variable = run(m_gui, {}, QStringLiteral("lots"));
        QCOMPARE(variable.exitCode, 2);
        QVERIFY2(variable.err.contains("SPYGLASS_GPU_MEMORY_CAP='lots'"), variable.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestGpuMemoryCap)
#include "tst_gpumemorycap.moc"
