// Hostile files (issue 27): a file declaring far more than it holds is refused quickly, naming the
// problem, and `spyglass-cli info` on it stays within 64 MB + 16 x its size of what a one-entry file
// needs; third-party parsers (matio, HDF5) run in a sandboxed child whose crash, hang or memory use
// becomes a reader error instead of taking the process down.
#include "../gpu/src/io/sandbox.h"
#include "clitesting.h"
#include "hostilefiles.h"

#include "spyglass/error.h"
#include "spyglass/matfile.h"
#include "spyglass/matrixfile.h"
#include "spyglass/npz.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

extern char** environ;

using namespace spyglass;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const CancelledError&) {
        return "cancelled";
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

// One run of a program with its own peak resident memory (wait4's rusage, not the sum over every
// child this process has had) and wall time.
struct MeasuredRun {
    int exitCode = -1;  // -1: killed by a signal, or no exit within the time
    QString err;
    long peakKiB = 0;
    double seconds = 0;     // wall clock
    double cpuSeconds = 0;  // user + system, the process and the children it waited for (the MATLAB reader's)
};

MeasuredRun runMeasured(const QString& program, const QStringList& args, const QString& errPath, double timeoutSeconds = 60) {
    std::vector<std::string> words{program.toStdString()};
    for (const QString& a : args) words.push_back(a.toStdString());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    const std::string err = errPath.toStdString();
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    MeasuredRun run;
    pid_t pid = -1;
    const auto start = std::chrono::steady_clock::now();
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) return run;
    int status = 0;
    rusage usage{};
    for (;;) {
        const pid_t got = wait4(pid, &status, WNOHANG, &usage);
        if (got == pid) break;
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeoutSeconds) {
            kill(pid, SIGKILL);
            wait4(pid, &status, 0, &usage);
            run.err = QStringLiteral("no exit within the time");
            return run;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    run.peakKiB = usage.ru_maxrss;
    run.cpuSeconds = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + 1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.err = QString::fromUtf8(testfiles::contentsOf(errPath));
    if (WIFSIGNALED(status)) run.err += QStringLiteral("\nkilled by signal %1").arg(WTERMSIG(status));
    return run;
}

} // namespace

class TestHostile : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::vector<hostilefiles::HostileFile> m_files;

    void addFileRows() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message");
        for (const hostilefiles::HostileFile& f : m_files) QTest::newRow(qPrintable(f.name)) << f.path << f.message;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_files = hostilefiles::writeAll(QDir(m_dir.path()));
        QVERIFY(!m_files.empty());
    }

    // The library refuses each, naming the problem, within 1 s, in the test's own process (the .mat
    // file through the sandbox).
    void eachIsRefusedQuicklyNamingTheProblem_data() { addFileRows(); }
    void eachIsRefusedQuicklyNamingTheProblem() {
        QFETCH(QString, path);
        QFETCH(QString, message);
        QElapsedTimer timer;
        timer.start();
        const std::string error = errorOf([&] { readMatrixFile(path.toStdString()); });
        const qint64 ms = timer.elapsed();
        QVERIFY2(QString::fromStdString(error).contains(message), error.c_str());
        QVERIFY2(ms < 1000, qPrintable(QStringLiteral("%1 ms").arg(ms)));
    }

    // spyglass-cli info as a user runs it: exit 1 with the reason, and peak memory within
    // 64 MB + 16 x the file's size of what the same command needs for a one-entry file.
    void cliInfoRefusesEachInBoundedMemoryAndTime_data() { addFileRows(); }
    void cliInfoRefusesEachInBoundedMemoryAndTime() {
        QFETCH(QString, path);
        QFETCH(QString, message);
        QString cli;
        CLITESTING_REQUIRE_CLI(cli);
        const QString one = m_dir.filePath(QStringLiteral("one.mtx"));
        QVERIFY(testfiles::writeFile(one, "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n"));
        const QString errPath = m_dir.filePath(QStringLiteral("stderr.txt"));
        MeasuredRun base = runMeasured(cli, {QStringLiteral("info"), one}, errPath);
        QCOMPARE(base.exitCode, 0);
        const MeasuredRun run = runMeasured(cli, {QStringLiteral("info"), path}, errPath);
        const long fileKiB = long(QFileInfo(path).size() / 1024 + 1);
        const long budgetKiB = base.peakKiB + 64 * 1024 + 16 * fileKiB;
        qInfo().noquote() << QFileInfo(path).fileName() << QFileInfo(path).size() << "bytes: peak" << run.peakKiB / 1024 << "MB (one entry"
                          << base.peakKiB / 1024 << "MB), " << run.seconds << "s (one entry" << base.seconds << "s), CPU" << run.cpuSeconds << "s:" << run.err.trimmed();
        QVERIFY2(run.exitCode == 1, qPrintable(run.err));
        QVERIFY2(run.err.contains(message), qPrintable(run.err));
        QVERIFY2(run.peakKiB <= budgetKiB, qPrintable(QStringLiteral("peak %1 KiB, budget %2 KiB").arg(run.peakKiB).arg(budgetKiB)));
        // Against the one-entry run of the same program: start-up (libraries, CUDA probing) is not the reader's.
        // CPU time, not wall time: on a loaded 2-core machine another process's time landed in the wall
        // clock (1.23 s once, 0.19 s alone); the work a hostile file forces is the reader's own CPU time,
        // and a hang is caught by runMeasured's time limit.
        QVERIFY2(run.cpuSeconds < base.cpuSeconds + 1.0,
                 qPrintable(QStringLiteral("%1 s of CPU (one entry %2 s)").arg(run.cpuSeconds).arg(base.cpuSeconds)));
    }

    // The message of a ZIP member declaring more than its deflated data can give says both numbers.
    void aZipMemberDeclaringMoreThanItsDataCanGiveIsRefusedBeforeInflating() {
        const std::string bytes = hostilefiles::csrNpz(0xFFFFFFF0ull);
        const std::string error = errorOf([&] { parseNpz(bytes, "bomb.npz"); });
        QVERIFY2(error.find("member data.npy declares 4294967280 bytes, but its ") != std::string::npos, error.c_str());
        QVERIFY2(error.find(" bytes of deflated data can give at most ") != std::string::npos, error.c_str());
        // Within deflate's ratio, but the data ends early: refused after inflating what is there.
        const std::string shortOne = hostilefiles::csrNpz(20000);
        const std::string early = errorOf([&] { parseNpz(shortOne, "short.npz"); });
        QVERIFY2(early.find("does not give the declared 20000 bytes (it gives 136)") != std::string::npos, early.c_str());
        // The same archive with honest sizes reads.
        const Matrix m = parseNpz(hostilefiles::csrNpz(0), "honest.npz");
        QCOMPARE(m.stored(), Count(1));
        QCOMPARE(m.real.at(0), 1.0);
    }

    void aCrashingParserBecomesAReaderError() {
        const std::string error = errorOf([] {
            sandbox::run("TEST", "crash.bin", {}, [](sandbox::Writer&) { raise(SIGSEGV); }, [](sandbox::Reader&) {});
        });
        QVERIFY2(error.find("crash.bin: the TEST reader stopped: it was killed by signal ") != std::string::npos, error.c_str());
    }

    void aParserOverItsMemoryLimitIsStopped() {
        sandbox::Limits limits;
        limits.memoryBytes = std::uint64_t(64) << 20;
        const std::string error = errorOf([&] {
            sandbox::run("TEST", "big.bin", limits,
                         [](sandbox::Writer& out) {
                             std::vector<char> huge(std::size_t(1) << 30, '\1');
                             out.value<int>(huge[12345]);
                         },
                         [](sandbox::Reader& in) { in.value<int>(); });
        });
        // Under ASan its allocator reports the failed allocation and aborts instead of throwing.
        const char* expected = kAsan ? "big.bin: the TEST reader stopped: " : "big.bin: the TEST reader stopped: it ran out of its 64 MB memory limit";
        QVERIFY2(error.find(expected) != std::string::npos, error.c_str());
    }

    void aHangingParserIsKilledAtTheWallClockLimit() {
        sandbox::Limits limits;
        limits.wallSeconds = 0.5;
        QElapsedTimer timer;
        timer.start();
        const std::string error = errorOf([&] {
            sandbox::run("TEST", "hang.bin", limits, [](sandbox::Writer&) { pause(); }, [](sandbox::Reader&) {});
        });
        QVERIFY2(error.find("hang.bin: the TEST reader stopped: it took longer than 0.5 s") != std::string::npos, error.c_str());
        QVERIFY2(timer.elapsed() < 3000, qPrintable(QString::number(timer.elapsed())));
    }

    void aSpinningParserIsStoppedAtTheCpuLimit() {
        sandbox::Limits limits;
        limits.cpuSeconds = 1;
        limits.wallSeconds = 20;
        const std::string error = errorOf([&] {
            sandbox::run("TEST", "spin.bin", limits, [](sandbox::Writer&) { for (volatile unsigned long i = 0;; i = i + 1) {} },
                         [](sandbox::Reader&) {});
        });
        QVERIFY2(error.find("spin.bin: the TEST reader stopped: it used more than its 1 s of CPU time") != std::string::npos, error.c_str());
    }

    // The child parsed a hostile file: what it sends is checked like any input.
    void aMalformedAnswerIsRefused() {
        const std::string error = errorOf([] {
            sandbox::run("TEST", "lie.bin", {}, [](sandbox::Writer& out) { out.string(std::string(100, 'x')); },
                         [](sandbox::Reader& in) { in.string(10); });
        });
        QVERIFY2(error.find("lie.bin: the TEST reader stopped: its answer is malformed: a string of 100 bytes (at most 10)") != std::string::npos,
                 error.c_str());
        const std::string trailing = errorOf([] {
            sandbox::run("TEST", "more.bin", {}, [](sandbox::Writer& out) { out.value<int>(1), out.value<int>(2); },
                         [](sandbox::Reader& in) { in.value<int>(); });
        });
        QVERIFY2(trailing.find("its answer is malformed: it goes on past its end") != std::string::npos, trailing.c_str());
    }

    void theChildsInputErrorKeepsItsMessageAndType() {
        try {
            sandbox::run("TEST", "x", {}, [](sandbox::Writer&) { throw InputError("x: line 3: bad"); }, [](sandbox::Reader&) {});
            QFAIL("no error");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromUtf8(e.what()), QStringLiteral("x: line 3: bad"));
        }
        int got = 0;
        sandbox::run("TEST", "x", {}, [](sandbox::Writer& out) { out.value<int>(42); }, [&](sandbox::Reader& in) { got = in.value<int>(); });
        QCOMPARE(got, 42);
    }

    void cancelStopsTheChild() {
        std::atomic<bool> cancel{false};
        std::thread later([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            cancel = true;
        });
        QElapsedTimer timer;
        timer.start();
        const std::string error = errorOf([&] {
            sandbox::run("TEST", "slow.bin", {}, [](sandbox::Writer&) { pause(); }, [](sandbox::Reader&) {}, &cancel);
        });
        later.join();
        QCOMPARE(QString::fromStdString(error), QStringLiteral("cancelled"));
        QVERIFY(timer.elapsed() < 3000);
    }

    // The known HDF5 over-read runs in the child: the test process lives on; under ASan (the
    // sanitizer stage) the child's report ends it and the read is a reader error naming the file.
    void theKnownHdf5CrashInputEndsInACleanError() {
        const std::string known = hostilefiles::knownHdf5CrashInput().toStdString();
        const std::string error = errorOf([&] { readMatFile(known); });
        qInfo() << "known HDF5 input:" << (error.empty() ? "read (the over-read went unseen)" : error.c_str());
        if (kAsan) QVERIFY2(error.find("hdf5_1.10.8_chunk_overread.mat: the MATLAB reader stopped: ") != std::string::npos, error.c_str());
        else QVERIFY2(error.empty() || error.find("hdf5_1.10.8_chunk_overread.mat") != std::string::npos, error.c_str());
        const std::string listing = errorOf([&] { listMatVariables(known); });
        QVERIFY2(listing.empty() || listing.find("hdf5_1.10.8_chunk_overread.mat") != std::string::npos, listing.c_str());
    }

    // spyglass-cli on it: never killed by a signal, within the memory bound.
    void cliInfoOnTheKnownHdf5CrashInputEndsCleanly() {
        QString cli;
        CLITESTING_REQUIRE_CLI(cli);
        const QString one = m_dir.filePath(QStringLiteral("one.mtx"));
        QVERIFY(testfiles::writeFile(one, "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n"));
        const QString errPath = m_dir.filePath(QStringLiteral("stderr.txt"));
        const MeasuredRun base = runMeasured(cli, {QStringLiteral("info"), one}, errPath);
        const QString known = hostilefiles::knownHdf5CrashInput();
        const MeasuredRun run = runMeasured(cli, {QStringLiteral("info"), known}, errPath);
        qInfo().noquote() << "known HDF5 input: exit" << run.exitCode << "peak" << run.peakKiB / 1024 << "MB (one entry" << base.peakKiB / 1024
                          << "MB)," << run.seconds << "s:" << run.err.trimmed();
        QVERIFY2(run.exitCode == 0 || (run.exitCode == 1 && run.err.contains(QStringLiteral("the MATLAB reader stopped"))), qPrintable(run.err));
        if (kAsan) QCOMPARE(run.exitCode, 1);
        QVERIFY(run.peakKiB <= base.peakKiB + 64 * 1024 + 16 * long(QFileInfo(known).size() / 1024 + 1));
    }

    // A parser crash or runaway allocation in the real reader's child, made on purpose
    // (SPYGLASS_MAT_READER_FAULT), in any build; the listing (the GUI's choice dialog) goes through the
    // same child.
    void matReaderFailuresInTheChildAreReaderErrors() {
        const std::string good = SPYGLASS_SOURCE_DIR "/tests/data/mat/several.mat";
        QVERIFY(listMatVariables(good).size() >= 2);
        qputenv("SPYGLASS_MAT_READER_FAULT", "crash");
        const std::string listing = errorOf([&] { listMatVariables(good); });
        const std::string reading = errorOf([&] { readMatFile(good, "west0479"); });
        qputenv("SPYGLASS_MAT_READER_FAULT", "memory");
        qputenv("SPYGLASS_MAT_READER_MEMORY_MB", "256");
        const std::string memory = errorOf([&] { readMatFile(good, "west0479"); });
        qunsetenv("SPYGLASS_MAT_READER_FAULT");
        qunsetenv("SPYGLASS_MAT_READER_MEMORY_MB");
        QVERIFY2(listing.find("several.mat: the MATLAB reader stopped: it was killed by signal ") != std::string::npos, listing.c_str());
        QVERIFY2(reading.find("several.mat: the MATLAB reader stopped: it was killed by signal ") != std::string::npos, reading.c_str());
        const char* expected = kAsan ? "several.mat: the MATLAB reader stopped: " : "several.mat: the MATLAB reader stopped: it ran out of its 256 MB memory limit";
        QVERIFY2(memory.find(expected) != std::string::npos, memory.c_str());
        QCOMPARE(readMatFile(good, "west0479").rows, Index(479));
    }
};

QTEST_GUILESS_MAIN(TestHostile)
#include "tst_hostile.moc"
