// Bad input through the entry points a user reaches: the container reader (files from elsewhere),
// the Matrix Market reader (headers that lie), the library calls (shapes that do not match, NaN),
// cancelled work, and spyglass-cli as a separate process (fail fast, exit 1, a message naming the
// problem, little memory). Each case here was a hole or is the contract that closed one.
#include "clitesting.h"
#include "testmatrices.h"
#include "spyglass/backend.h"
#include "spyglass/container.h"
#include "spyglass/convert.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/error.h"
#include "spyglass/hostmemory.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/segdia_spmv.h"

#include <QtTest>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <sys/resource.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>

using namespace spyglass;

namespace {

constexpr Index kMaxIndex = std::numeric_limits<Index>::max();

void appendU32(std::string& s, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// One 32-byte region record as docs/container-format.md lays it out.
std::string regionRecord(std::uint8_t shape, std::int32_t r0, std::int32_t r1, std::int32_t c0, std::int32_t c1) {
    std::string s;
    s.push_back(static_cast<char>(shape));
    s.push_back(0);
    s.push_back(0);
    s.push_back(0);
    for (std::int32_t v : {r0, r1, c0, c1, 0, 0}) appendU32(s, static_cast<std::uint32_t>(v));
    appendU32(s, 0);
    return s;
}

// A correctly framed (CRC and length right) hybrid container of the given size holding these region
// records and empty other sections: only the encoding checks can refuse it.
std::string hybridContainerWithRegions(Index rows, Index cols, const std::string& regionRecords) {
    Container c;
    c.encoding = ContainerEncoding::HybridBinary;
    c.rows = rows;
    c.cols = cols;
    std::string summary;
    appendU32(summary, 0);
    appendU32(summary, 0);
    c.sections.push_back({container::kHybridSummary, 0, summary, 0});
    c.sections.push_back({container::kHybridRegions, 0, regionRecords, 0});
    c.sections.push_back({container::kHybridZeroRowPtr, 0, std::string(), 0});
    c.sections.push_back({container::kHybridZeroOffsets, 0, std::string(), 0});
    c.sections.push_back({container::kHybridResidualRowPtr, 0, std::string(), 0});
    c.sections.push_back({container::kHybridResidualCols, 0, std::string(), 0});
    return serializeContainer(c);
}

std::string mmHeader(const char* kind = "coordinate real general") {
    return std::string("%%MatrixMarket matrix ") + kind + "\n";
}

// What a call that must refuse its input did: the Error it threw (none when it accepted the input)
// and how long it took, for inputs that claim sizes they must be refused by before any work in
// proportion to them.
template <typename Error> struct Refusal {
    std::optional<Error> error;
    qint64 ms = 0;
};

template <typename Error, typename Call> Refusal<Error> refusal(Call call) {
    Refusal<Error> result;
    QElapsedTimer timer;
    timer.start();
    try {
        call();
    } catch (const Error& error) {
        result.error = error;
    }
    result.ms = timer.elapsed();
    return result;
}

} // namespace

class TestBadInput : public QObject {
    Q_OBJECT

    QString m_cli;
    QTemporaryDir m_dir;

    using Result = clitesting::CliResult<>;

    Result runCli(const QStringList& args) { return clitesting::runProgram(m_cli, args, clitesting::headlessEnvironment()); }

    QString writeFile(const QString& name, const std::string& text) { return clitesting::writeBytes(m_dir.filePath(name), text); }

    bool haveCli() const { return !m_cli.isEmpty(); }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_cli = clitesting::builtCliPath();
    }

    // --- container reader -------------------------------------------------------------------------

    // Found by fuzz/fuzz_container: a 300-byte file declaring regions of 2^31 rows made the reader
    // count their cells row by row (twice per region) before checking them against the zero row
    // pointer section, so a tiny file kept the reader busy for minutes.
    void containerWithHugeRegionsIsRefusedQuickly() {
        std::string records;
        for (int k = 0; k < 16; ++k) records += regionRecord(0, 0, kMaxIndex, 0, kMaxIndex);
        const std::string bytes = hybridContainerWithRegions(kMaxIndex, kMaxIndex, records);
        const auto refused = refusal<ContainerFormatError>([&bytes] { (void)parseHybridContainer(bytes, "huge.sgx"); });
        QVERIFY2(refused.error, "a container whose regions need 2^35 zero row pointers was accepted");
        QVERIFY2(std::string(refused.error->what()).find("huge.sgx: byte ") == 0, refused.error->what());
        QVERIFY2(refused.error->problem().find("zero row pointer") != std::string::npos, refused.error->what());
        // Counting 2^31 rows once takes seconds even unoptimised; refusing from the sizes takes none.
        QVERIFY2(refused.ms < 2000, qPrintable(QString::number(refused.ms) + " ms"));
    }

    // The region's own description used to be built (counting every cell, and computing colEnd -
    // colBegin in int, which overflows for a negative begin) before its bounds were checked.
    void regionOutsideTheMatrixIsRefusedBeforeItIsMeasured() {
        DenseRegion region;
        region.rowBegin = 0;
        region.rowEnd = kMaxIndex;
        region.colBegin = -7;
        region.colEnd = kMaxIndex;
        const auto refused = refusal<InputError>([&region] { validateRegion(region, kMaxIndex, kMaxIndex); });
        QVERIFY2(refused.error, "a region starting at column -7 was accepted");
        const std::string what = refused.error->what();
        QVERIFY2(what.find("cols [-7,") != std::string::npos, what.c_str());
        QVERIFY2(what.find("outside") != std::string::npos, what.c_str());
        QVERIFY2(refused.ms < 2000, qPrintable(QString::number(refused.ms) + " ms"));
    }

    // Every single-byte change of a valid container is either refused with a ContainerFormatError
    // or (only in the free-form note) still decodes to the same matrix; never anything else.
    void everyFlippedByteOfAContainerIsDetected() {
        std::mt19937 rng(20261122);
        std::vector<Index> r, c;
        for (Index i = 3; i < 11; ++i)
            for (Index j = 2; j < 9; ++j)
                if (rng() % 6) { r.push_back(i); c.push_back(j); }
        for (int k = 0; k < 9; ++k) { r.push_back(rng() % 13); c.push_back(rng() % 17); }
        const BinaryPattern pattern = binaryPatternFromCoordinates(13, 17, r, c);
        DenseRegion box;
        box.rowBegin = 3; box.rowEnd = 11; box.colBegin = 2; box.colEnd = 9;
        HybridEncodeOptions options;
        options.forceRegions = true;
        const HybridBinaryMatrix hybrid = encodeHybrid(pattern, {box}, options);
        const std::string good = serializeContainer(hybridToContainer(hybrid));
        int refused = 0;
        for (std::size_t at = 0; at < good.size(); ++at) {
            std::string bad = good;
            bad[at] = static_cast<char>(bad[at] ^ (1 + rng() % 255));
            try {
                (void)parseHybridContainer(bad, "flipped.sgx");
                QFAIL(qPrintable(QString("byte %1 changed and the CRC did not notice").arg(at)));
            } catch (const ContainerFormatError&) {
                ++refused;
            }
        }
        QCOMPARE(refused, static_cast<int>(good.size()));
    }

    // --- Matrix Market reader ----------------------------------------------------------------------

    void headerClaimingATrillionEntriesFailsBeforeAllocating_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("sizeLine");
        QTest::newRow("coordinate 10^12") << "coordinate real general" << "1000000 1000000 1000000000000";
        QTest::newRow("coordinate past int64") << "coordinate real general" << "3 3 99999999999999999999999";
        QTest::newRow("array 2^31 squared") << "array real general" << "2147483647 2147483647";
        QTest::newRow("array symmetric huge") << "array complex hermitian" << "2000000000 2000000000";
    }
    void headerClaimingATrillionEntriesFailsBeforeAllocating() {
        QFETCH(QString, kind);
        QFETCH(QString, sizeLine);
        const std::string text = mmHeader(kind.toLatin1().constData()) + sizeLine.toStdString() + "\n1 1 1\n";
        const auto refused = refusal<ParseError>([&text] { (void)parseMatrixMarket(text, "liar.mtx"); });
        QVERIFY2(refused.error, "a header claiming more entries than the cap was accepted");
        QCOMPARE(refused.error->source(), std::string("liar.mtx"));
        QCOMPARE(refused.error->line(), std::int64_t(2));
        QVERIFY(refused.ms < 2000);
    }

    // A count under the cap but far beyond the body must not be reserved up front either: the file
    // ends after one entry and the reader says so, without having touched gigabytes.
    void shortBodyUnderTheCapFailsNamingTheLastLine() {
        const std::string text = mmHeader() + "100000 100000 1500000000\n1 1 1\n";
        try {
            (void)parseMatrixMarket(text, "short.mtx");
            QFAIL("a file with 1 of 1.5e9 declared entries was accepted");
        } catch (const ParseError& error) {
            QVERIFY2(error.line() >= 3, error.what());
        }
    }

    void cancelledReadStopsWithCancelledError() {
        std::string text = mmHeader() + "500 500 2000\n";
        std::mt19937 rng(7);
        for (int k = 0; k < 2000; ++k)
            text += std::to_string(1 + rng() % 500) + " " + std::to_string(1 + rng() % 500) + " 0.5\n";
        const QString path = writeFile(QStringLiteral("cancel.mtx"), text);
        std::atomic<bool> cancel{true};
        ReadOptions options;
        options.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(CancelledError, parseMatrixMarket(text, "cancel.mtx", options));
        QVERIFY_THROWS_EXCEPTION(CancelledError, readMatrixMarket(path.toStdString(), options));
        // Not cancelled: the same text reads completely, so the exception above came from the flag.
        cancel = false;
        QCOMPARE(readMatrixMarket(path.toStdString(), options).stored(), Count(2000));
    }

    // --- library calls with mismatched shapes and non-finite values ---------------------------------

    void spmvWithAShortVectorIsRefused() {
        const Matrix m = parseMatrixMarket(mmHeader() + "5 7 3\n1 1 1\n5 7 2\n3 4 3\n");
        const auto csr = toCsr<double>(m);
        const std::vector<double> x(6, 1.0);  // one short
        try {
            (void)spmvReference(csr, x);
            QFAIL("SpMV of a 5 x 7 matrix with 6 x values was accepted");
        } catch (const InputError& error) {
            QVERIFY2(std::string(error.what()).find('7') != std::string::npos, error.what());
        }
    }

    // NaN and Inf are legal Matrix Market values: they are read exactly and they propagate through
    // SpMV to exactly the rows that touch them (IEEE), never silently dropped.
    void nonFiniteValuesPropagateToTheirRowsOnly() {
        const Matrix m = parseMatrixMarket(mmHeader() + "4 4 5\n1 1 nan\n2 2 inf\n3 3 -inf\n4 4 2\n4 1 1\n");
        QVERIFY(std::isnan(m.real[0]));
        QVERIFY(std::isinf(m.real[1]) && m.real[1] > 0);
        const auto y = spmvReference(toCsr<double>(m), std::vector<double>(4, 1.0));
        QVERIFY(std::isnan(y[0]));
        QCOMPARE(y[1], std::numeric_limits<double>::infinity());
        QCOMPARE(y[2], -std::numeric_limits<double>::infinity());
        QCOMPARE(y[3], 3.0);
    }

    // --- no device ---------------------------------------------------------------------------------

    void deviceMemoryCapIsKeptAndCleared() {
        setDeviceMemoryCap(4096);
        QCOMPARE(deviceMemoryCap(), std::size_t(4096));
        setDeviceMemoryCap(0);
        QCOMPARE(deviceMemoryCap(), std::size_t(0));
    }

    // --- spyglass-cli ------------------------------------------------------------------------------

    void cliRefusesAHugeHeaderFastWithLittleMemory() {
        if (!haveCli()) QSKIP("spyglass-cli is not built next to the tests");
        const QString path = writeFile(QStringLiteral("trillion.mtx"), mmHeader() + "1000000 1000000 1000000000000\n1 1 1\n");
        for (const char* command : {"info", "spmv", "detect", "convert"}) {
            QStringList args{QString::fromLatin1(command), path};
            if (QByteArray(command) == "convert") args << m_dir.filePath(QStringLiteral("out.mtx"));
            const Result r = runCli(args);
            QVERIFY2(r.exitCode == 1, command);
            QVERIFY2(r.err.contains("trillion.mtx:2:"), r.err.constData());
            QVERIFY2(r.ms < 10000, command);
        }
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("out.mtx"))));
        // Every CLI child so far stayed small: the 10^12 entries were refused, not reserved.
        rusage usage{};
        getrusage(RUSAGE_CHILDREN, &usage);
        QVERIFY2(usage.ru_maxrss < 1024 * 1024, qPrintable(QString::number(usage.ru_maxrss) + " KiB"));
    }

    // Found by probing: a 60-byte file declaring 2e9 x 2e9 with one entry made spmv and detect
    // zero-fill tens of GiB of row pointers and vectors until the OOM killer stopped them silently.
    // Now refused up front when the header's arrays exceed the machine (skipped on machines that big).
    void cliRefusesDimensionsBeyondHostMemory() {
        if (!haveCli()) QSKIP("spyglass-cli is not built next to the tests");
        const Index n = 2000000000;
        if (16 * (std::uint64_t(n) + 1) <= hostMemoryBytes()) QSKIP("this machine could hold the arrays");
        const QString path = writeFile(QStringLiteral("wide.mtx"), mmHeader() + "2000000000 2000000000 1\n1 1 1\n");
        const QList<QStringList> commands = {{QStringLiteral("spmv"), path, QStringLiteral("--format"), QStringLiteral("csr")},
                                             {QStringLiteral("detect"), path}};
        for (const QStringList& args : commands) {
            const Result r = runCli(args);
            QVERIFY2(r.exitCode == 1, qPrintable(args.first()));
            QVERIFY2(r.err.contains("wide.mtx") && r.err.contains("GiB of host memory"), r.err.constData());
            QVERIFY(r.out.isEmpty());
            QVERIFY2(r.ms < 10000, qPrintable(args.first()));
        }
        rusage usage{};
        getrusage(RUSAGE_CHILDREN, &usage);
        QVERIFY2(usage.ru_maxrss < 1024 * 1024, qPrintable(QString::number(usage.ru_maxrss) + " KiB"));
    }

    void requireHostMemoryRefusesOnlyWhatCannotFit() {
        const std::uint64_t present = hostMemoryBytes();
        if (present == 0) QSKIP("physical memory cannot be told here");
        requireHostMemory(present / 2, "half the machine");
        try {
            requireHostMemory(present + 1, "one byte more than the machine");
            QFAIL("a request past physical memory was accepted");
        } catch (const OutOfMemoryError& error) {
            QVERIFY2(std::string(error.what()).find("one byte more than the machine needs") != std::string::npos, error.what());
        }
    }

    void cliSpmvWithAWrongLengthVectorFileNamesIt() {
        if (!haveCli()) QSKIP("spyglass-cli is not built next to the tests");
        const QString a = writeFile(QStringLiteral("a.mtx"), mmHeader() + "3 5 2\n1 1 1\n3 5 2\n");
        const QString x = writeFile(QStringLiteral("x.txt"), "1 2 3 4\n");
        const Result r = runCli({QStringLiteral("spmv"), a, QStringLiteral("--format"), QStringLiteral("csr"),
                                 QStringLiteral("--x"), x});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("x.txt") && r.err.contains("5"), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    void cliSpmvCarriesNonFiniteValuesThrough() {
        if (!haveCli()) QSKIP("spyglass-cli is not built next to the tests");
        const QString a = writeFile(QStringLiteral("nan.mtx"), mmHeader() + "3 3 3\n1 1 nan\n2 2 inf\n3 3 4\n");
        const Result r = runCli({QStringLiteral("spmv"), a, QStringLiteral("--format"), QStringLiteral("csr")});
        QCOMPARE(r.exitCode, 0);
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 3);
        QVERIFY2(lines[0].toLower().contains("nan"), lines[0].constData());
        QVERIFY2(lines[1].toLower().contains("inf"), lines[1].constData());
        QCOMPARE(lines[2].toDouble(), 4.0);
    }

    void cliInfoCountsNonFiniteValuesAndDetectKeepsThem() {
        if (!haveCli()) QSKIP("spyglass-cli is not built next to the tests");
        const QString a = writeFile(QStringLiteral("naninfo.mtx"), mmHeader() + "4 4 3\n1 1 nan\n2 2 -inf\n4 3 1\n");
        const Result info = runCli({QStringLiteral("info"), a, QStringLiteral("--json")});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(info.out.contains("\"has_non_finite\": true"), info.out.constData());
        // Detection works on the pattern; a matrix with other values (NaN and Inf included: they are
        // values like any other) takes the valued hybrid encoding, which keeps them.
        const Result detect = runCli({QStringLiteral("detect"), a, QStringLiteral("--json")});
        QCOMPARE(detect.exitCode, 0);
        QVERIFY2(detect.out.contains("\"valued\": true"), detect.out.constData());
    }

    void cliInvertWithNonSquareStackIsRefused() {
        if (!haveCli()) QSKIP("spyglass-cli is not built next to the tests");
        const QString a = writeFile(QStringLiteral("stack.mtx"), mmHeader("array real general") + "5 3\n" +
                                                                    std::string("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n"));
        const Result r = runCli({QStringLiteral("invert"), QStringLiteral("--in"), a});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("stack.mtx") && r.err.contains("5 x 3"), r.err.constData());
    }

    // A 60-byte coordinate file declaring 2^31 - 1 stacked 1 x 1 matrices used to make invert allocate
    // and zero-fill 8 GiB (f32) before looking at a single entry; it is now refused from the header.
    void cliInvertRefusesAStackTooLargeToDensify() {
        if (!haveCli()) QSKIP("spyglass-cli is not built next to the tests");
        const QString a = writeFile(QStringLiteral("tallstack.mtx"), mmHeader() + "2147483647 1 1\n1 1 2\n");
        const Result r = runCli({QStringLiteral("invert"), QStringLiteral("--in"), a});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("tallstack.mtx") && r.err.contains("2147483647 values"), r.err.constData());
        QVERIFY(r.ms < 10000);
        rusage usage{};
        getrusage(RUSAGE_CHILDREN, &usage);
        QVERIFY2(usage.ru_maxrss < 1024 * 1024, qPrintable(QString::number(usage.ru_maxrss) + " KiB"));
    }

    void cliInvertWithNonFiniteEntriesReportsThem() {
        if (!haveCli()) QSKIP("spyglass-cli is not built next to the tests");
        // Two 2 x 2 matrices stacked: the first holds a NaN, the second is the identity.
        const QString a = writeFile(QStringLiteral("naninv.mtx"), mmHeader("array real general") + "4 2\n" +
                                                                     std::string("nan\n0\n1\n0\n0\n1\n0\n1\n"));
        const Result r = runCli({QStringLiteral("invert"), QStringLiteral("--in"), a, QStringLiteral("--type"),
                                 QStringLiteral("f64"), QStringLiteral("--list-failed")});
        QVERIFY2(r.exitCode == 0 || r.exitCode == 1, r.err.constData());
        if (r.exitCode == 0) {
            // The run completes; the NaN matrix is counted as failed, the identity is not.
            QVERIFY2(r.out.contains("failed matrix   0"), r.out.constData());
            QVERIFY2(!r.out.contains("failed matrix   1"), r.out.constData());
        } else {
            QVERIFY2(r.err.contains("naninv.mtx"), r.err.constData());
        }
    }

    // Exports are atomic: a command that fails - bad input, shapes that do not match, a singular
    // matrix, a vector of the wrong length - leaves a file already at its output path exactly as it
    // was, and no temporary file beside it.
    void cliFailuresLeaveAnExistingOutputUntouched() {
        if (!haveCli()) QSKIP("spyglass-cli is not built next to the tests");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto write = [&dir](const char* name, const std::string& text) {
            QFile file(dir.filePath(QString::fromLatin1(name)));
            if (file.open(QIODevice::WriteOnly)) file.write(text.data(), qint64(text.size()));
            return file.fileName();
        };
        const QString truncated = write("truncated.mtx", mmHeader() + "3 3 3\n1 1 1\n2 2 1\n");
        const QString a22 = write("a22.mtx", mmHeader() + "2 2 2\n1 1 1\n2 2 1\n");
        const QString a33 = write("a33.mtx", mmHeader() + "3 3 3\n1 1 1\n2 2 1\n3 3 1\n");
        const QString singular = write("singular.mtx", mmHeader() + "2 2 4\n1 1 1\n1 2 1\n2 1 1\n2 2 1\n");
        const QString stack = write("stack53.mtx", mmHeader("array real general") + "5 3\n" + [] {
            std::string values;
            for (int k = 1; k <= 15; ++k) values += std::to_string(k) + "\n";
            return values;
        }());
        const QString shortX = write("x2.txt", "1 2\n");
        const QString out = dir.filePath(QStringLiteral("out.mtx"));
        const QList<QStringList> commands = {
            {"convert", truncated, out},
            {"export", truncated, "--format", "hybrid", "-o", out},
            {"matop", "add", a22, a33, "--out", out},
            {"matop", "mul", a22, a33, "--out", out},
            {"lu", singular, "--out-l", out},
            {"invert", "--in", stack, "--out", out},
            {"spmv", a33, "--format", "csr", "--x", shortX, "--out", out},
        };
        for (const QStringList& command : commands) {
            const QByteArray before = "keep me: " + command.join(' ').toUtf8() + "\n";
            {
                QFile file(out);
                QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
                file.write(before);
            }
            const QStringList entries = QDir(dir.path()).entryList(QDir::Files | QDir::Hidden);
            const Result r = runCli(command);
            QVERIFY2(r.exitCode == 1, qPrintable(command.join(' ') + ": exit " + QString::number(r.exitCode) + " " + r.err));
            QVERIFY2(!r.err.isEmpty(), qPrintable(command.join(' ')));
            QFile file(out);
            QVERIFY(file.open(QIODevice::ReadOnly));
            QCOMPARE(file.readAll(), before);
            QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), entries);
        }
    }

    // Shapes that do not match, through the bit-flag commands: refused by name, nothing computed.
    void cliMatopRefusesMismatchedShapesNamingThem() {
        if (!haveCli()) QSKIP("spyglass-cli is not built next to the tests");
        const QString a = writeFile(QStringLiteral("m22.mtx"), mmHeader() + "2 2 2\n1 1 1\n2 2 1\n");
        const QString b = writeFile(QStringLiteral("m33.mtx"), mmHeader() + "3 3 3\n1 1 1\n2 2 1\n3 3 1\n");
        const Result add = runCli({QStringLiteral("matop"), QStringLiteral("add"), a, b});
        QCOMPARE(add.exitCode, 1);
        QVERIFY2(add.err.contains("2 x 2") && add.err.contains("3 x 3"), add.err.constData());
        const Result mul = runCli({QStringLiteral("matop"), QStringLiteral("mul"), a, b});
        QCOMPARE(mul.exitCode, 1);
        QVERIFY2(mul.err.contains("2 columns") && mul.err.contains("3"), mul.err.constData());
    }

    void cliCudaBackendWithoutDeviceSaysSo() {
        if (!haveCli()) QSKIP("spyglass-cli is not built next to the tests");
        const auto backends = availableBackends();
        for (const BackendInfo& b : backends)
            if (b.kind != BackendKind::Reference && b.available) QSKIP("a CUDA device is present");
        const QString a = writeFile(QStringLiteral("dev.mtx"), mmHeader() + "3 3 3\n1 1 1\n2 2 1\n3 3 1\n");
        const Result spmv = runCli({QStringLiteral("spmv"), a, QStringLiteral("--backend"), QStringLiteral("cuda")});
        QCOMPARE(spmv.exitCode, 1);
        QVERIFY2(spmv.err.toLower().contains("cuda"), spmv.err.constData());
        const Result inv = runCli({QStringLiteral("invert"), QStringLiteral("--backend"), QStringLiteral("cuda"),
                                   QStringLiteral("--batch"), QStringLiteral("4")});
        QCOMPARE(inv.exitCode, 1);
        QVERIFY2(inv.err.toLower().contains("cuda"), inv.err.constData());
        QVERIFY(spmv.out.isEmpty() && inv.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestBadInput)
#include "tst_badinput.moc"
