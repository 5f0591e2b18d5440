// The rendezvous that bootstraps a multi-process run (spyglass/rendezvous.h), both kinds, on this
// machine: ranks as threads and as processes get rank 0's bytes; a rank that never comes is named in
// rank 0's timeout, and rank 0's absence in the others'; a file or a marker left by another run is
// never taken for this one; ranks that disagree on the world size, two processes claiming one rank
// and bytes that are no rendezvous message are refused with a message that says so.
#include "spyglass/error.h"
#include "spyglass/rendezvous.h"

#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <future>
#include <random>
#include <thread>

using namespace spyglass;
using namespace std::chrono_literals;

namespace {

// What one rank's call gave: the bytes, or the error's message.
struct Outcome {
    std::vector<std::uint8_t> blob;
    std::string error;
    bool failed() const { return !error.empty(); }
};

Outcome runRank(const RendezvousSpec& spec, int rank, int worldSize, const std::vector<std::uint8_t>& blob,
                std::chrono::milliseconds timeout) {
    try {
        return {exchangeThroughRendezvous(spec, rank, worldSize, blob, timeout), {}};
    } catch (const Error& e) {
        return {{}, e.what()};
    }
}

std::future<Outcome> startRank(const RendezvousSpec& spec, int rank, int worldSize, const std::vector<std::uint8_t>& blob,
                               std::chrono::milliseconds timeout) {
    return std::async(std::launch::async, runRank, spec, rank, worldSize, blob, timeout);
}

// An ncclUniqueId's size, seeded.
std::vector<std::uint8_t> randomBlob(unsigned seed, std::size_t size = 128) {
    std::mt19937 random(seed);
    std::vector<std::uint8_t> blob(size);
    for (std::uint8_t& b : blob) b = static_cast<std::uint8_t>(random() & 0xff);
    return blob;
}

// A port nobody listens on now (the system's pick for a socket bound to port 0, then closed).
std::uint16_t freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        qFatal("no free port: %s", std::strerror(errno));
    ::close(fd);
    return ntohs(address.sin_port);
}

RendezvousSpec specOf(const QString& kind, const QTemporaryDir& dir, const std::string& runId = "42") {
    if (kind == "file") return parseRendezvousSpec("file:" + (dir.path() + "/rendezvous").toStdString(), runId);
    return parseRendezvousSpec("tcp:127.0.0.1:" + std::to_string(freePort()), runId);
}

// The spec of the current data row's "kind": most tests run once per kind, and only the spec differs.
RendezvousSpec specOfThisRow(const QTemporaryDir& dir) {
    QFETCH(QString, kind);
    return specOf(kind, dir);
}

void writeText(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// A connection to 127.0.0.1:port that sends bytes and returns what comes back before the peer closes.
QByteArray sendRaw(std::uint16_t port, const QByteArray& bytes) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    for (int attempt = 0; ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0; ++attempt) {
        if (attempt == 200) qFatal("cannot connect to rank 0");
        std::this_thread::sleep_for(10ms);
    }
    ::send(fd, bytes.constData(), std::size_t(bytes.size()), MSG_NOSIGNAL);
    ::shutdown(fd, SHUT_WR);  // all that comes: a message cut short is seen as cut, not as slow
    QByteArray answer;
    char buffer[256];
    for (ssize_t got; (got = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) answer.append(buffer, got);
    ::close(fd);
    return answer;
}

// The checking-in message of the TCP kind, spelled out here (rendezvous_message.h) so that a change
// of the wire format is a visible change of this test.
QByteArray helloBytes(std::uint16_t version, const std::string& runId, std::uint32_t rank, std::uint32_t world,
                      std::uint32_t blobLength = 0) {
    QByteArray bytes("SGRV");
    auto put = [&bytes](std::uint32_t value, int count) {
        for (int k = 0; k < count; ++k) bytes.append(char((value >> (8 * k)) & 0xff));
    };
    put(version, 2);
    put(std::uint32_t(runId.size()), 2);
    put(rank, 4);
    put(world, 4);
    put(blobLength, 4);
    bytes.append(runId.data(), qsizetype(runId.size()));
    bytes.append(QByteArray(qsizetype(std::min<std::uint32_t>(blobLength, 64)), 'x'));  // a huge claim is cut anyway
    return bytes;
}

QStringList filesIn(const QTemporaryDir& dir) { return QDir(dir.path()).entryList(QDir::Files | QDir::Hidden); }

} // namespace

class TestRendezvous : public QObject {
    Q_OBJECT

private:
    void kinds() {
        QTest::addColumn<QString>("kind");
        QTest::newRow("file") << "file";
        QTest::newRow("tcp") << "tcp";
    }

private slots:
    void specsAreParsedAsWritten() {
        const RendezvousSpec file = parseRendezvousSpec("file:/shared/run/x", "42");
        QCOMPARE(int(file.kind), int(RendezvousKind::File));
        QCOMPARE(file.path, std::string("/shared/run/x"));
        QCOMPARE(file.describe(), std::string("rendezvous file:/shared/run/x run 42"));
        const RendezvousSpec tcp = parseRendezvousSpec("tcp:node07:29500", "job-9.1");
        QCOMPARE(int(tcp.kind), int(RendezvousKind::Tcp));
        QCOMPARE(tcp.host, std::string("node07"));
        QCOMPARE(int(tcp.port), 29500);
        const RendezvousSpec ipv6 = parseRendezvousSpec("tcp:[::1]:80", "7");
        QCOMPARE(ipv6.host, std::string("::1"));
        QCOMPARE(ipv6.address(), std::string("tcp:[::1]:80"));
    }

    void theRunIdComesFromSlurmWhenNotGiven() {
        const QByteArray saved = qgetenv("SLURM_JOB_ID");
        qputenv("SLURM_JOB_ID", "31337");
        QCOMPARE(parseRendezvousSpec("file:/x").runId, std::string("31337"));
        QCOMPARE(parseRendezvousSpec("file:/x", "own").runId, std::string("own"));
        qunsetenv("SLURM_JOB_ID");
        try {
            parseRendezvousSpec("file:/x");
            QFAIL("a spec without any run id was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::strstr(e.what(), "--run-id") != nullptr, e.what());
        }
        if (!saved.isNull()) qputenv("SLURM_JOB_ID", saved);
    }

    void badSpecsAreRefused_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("runId");
        QTest::addColumn<QString>("problem");
        QTest::newRow("no kind") << "/shared/x" << "1" << "expected file:PATH or tcp:HOST:PORT";
        QTest::newRow("empty path") << "file:" << "1" << "needs a path";
        QTest::newRow("folder") << "file:/shared/" << "1" << "not a folder";
        QTest::newRow("no port") << "tcp:host" << "1" << "HOST:PORT";
        QTest::newRow("port 0") << "tcp:host:0" << "1" << "1 to 65535";
        QTest::newRow("port too big") << "tcp:host:65536" << "1" << "1 to 65535";
        QTest::newRow("port not a number") << "tcp:host:x1" << "1" << "1 to 65535";
        QTest::newRow("no host") << "tcp::29500" << "1" << "the host";
        QTest::newRow("run id with a space") << "file:/x" << "a b" << "may hold only";
        QTest::newRow("run id with a newline") << "file:/x" << "a\nworld 9" << "may hold only";
    }
    void badSpecsAreRefused() {
        QFETCH(QString, spec);
        QFETCH(QString, runId);
        QFETCH(QString, problem);
        try {
            parseRendezvousSpec(spec.toStdString(), runId.toStdString());
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(problem), e.what());
            QVERIFY2(QString(e.what()).startsWith("rendezvous '"), e.what());
        }
    }

    void everyRankGetsRankZerosBytes_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("worldSize");
        for (const char* kind : {"file", "tcp"})
            for (const int world : {1, 2, 3, 5})
                QTest::addRow("%s, %d ranks", kind, world) << QString(kind) << world;
    }
    void everyRankGetsRankZerosBytes() {
        QFETCH(int, worldSize);
        QTemporaryDir dir;
        const RendezvousSpec spec = specOfThisRow(dir);
        const std::vector<std::uint8_t> blob = randomBlob(unsigned(worldSize));
        std::vector<std::future<Outcome>> ranks;
        // The others first: rank 0 is the last to come, as it often is when it also reads the matrix.
        for (int r = worldSize - 1; r >= 0; --r)
            ranks.push_back(startRank(spec, r, worldSize, r == 0 ? blob : randomBlob(99), 10s));
        for (std::future<Outcome>& rank : ranks) {
            const Outcome outcome = rank.get();
            QVERIFY2(!outcome.failed(), outcome.error.c_str());
            QVERIFY(outcome.blob == blob);
        }
        QCOMPARE(filesIn(dir), QStringList());  // rank 0 leaves nothing behind for a later run
    }

    void processesMeetToo_data() { kinds(); }
    void processesMeetToo() {
        QTemporaryDir dir;
        const RendezvousSpec spec = specOfThisRow(dir);
        const std::vector<std::uint8_t> blob = randomBlob(7);
        const QString address = QString::fromStdString(spec.address());
        constexpr int kWorld = 3;
        std::vector<std::unique_ptr<QProcess>> helpers;
        for (int r = 1; r < kWorld; ++r) {
            helpers.push_back(std::make_unique<QProcess>());
            helpers.back()->start(QCoreApplication::applicationFilePath(),
                                  {"--rendezvous-rank", address, QString::fromStdString(spec.runId), QString::number(r),
                                   QString::number(kWorld)});
            QVERIFY(helpers.back()->waitForStarted());
        }
        const Outcome rankZero = runRank(spec, 0, kWorld, blob, 10s);
        QVERIFY2(!rankZero.failed(), rankZero.error.c_str());
        const QByteArray hex = QByteArray(reinterpret_cast<const char*>(blob.data()), qsizetype(blob.size())).toHex();
        for (const auto& helper : helpers) {
            QVERIFY(helper->waitForFinished(10000));
            QVERIFY2(helper->exitCode() == 0, helper->readAllStandardError().constData());
            QCOMPARE(helper->readAllStandardOutput().trimmed(), hex);
        }
    }

    void aMissingRankIsNamedByRankZero_data() { kinds(); }
    void aMissingRankIsNamedByRankZero() {
        QTemporaryDir dir;
        const RendezvousSpec spec = specOfThisRow(dir);
        const std::vector<std::uint8_t> blob = randomBlob(3);
        std::vector<std::future<Outcome>> others;
        for (const int r : {1, 2}) others.push_back(startRank(spec, r, 4, {}, 5s));
        const auto started = std::chrono::steady_clock::now();
        // Long enough for ranks 1 and 2 to come on a busy machine, so that only rank 3 is missing.
        const Outcome rankZero = runRank(spec, 0, 4, blob, 1200ms);
        const auto waited = std::chrono::steady_clock::now() - started;
        QVERIFY(rankZero.failed());
        const std::string expected = spec.describe() + ": rank 3 of 4 did not arrive within 1.2 s";
        QVERIFY2(rankZero.error.rfind(expected, 0) == 0, rankZero.error.c_str());
        QVERIFY(waited >= 1200ms && waited < 5s);
        for (std::future<Outcome>& other : others) {
            const Outcome outcome = other.get();  // those that came got the bytes all the same
            QVERIFY2(!outcome.failed(), outcome.error.c_str());
            QVERIFY(outcome.blob == blob);
        }
        QCOMPARE(filesIn(dir), QStringList());
    }

    void severalMissingRanksAreAllNamed() {
        QTemporaryDir dir;
        const Outcome rankZero = runRank(specOf("file", dir), 0, 4, randomBlob(1), 200ms);
        QVERIFY2(QString::fromStdString(rankZero.error).contains("ranks 1, 2, 3 of 4 did not arrive within 0.2 s"),
                 rankZero.error.c_str());
    }

    void aMissingRankZeroIsNamedByTheOthers_data() { kinds(); }
    void aMissingRankZeroIsNamedByTheOthers() {
        QTemporaryDir dir;
        const RendezvousSpec spec = specOfThisRow(dir);
        const Outcome rankTwo = runRank(spec, 2, 3, {}, 300ms);
        QVERIFY(rankTwo.failed());
        const QString error = QString::fromStdString(rankTwo.error);
        QVERIFY2(error.startsWith(QString::fromStdString(spec.describe() + ", rank 2: rank 0 ")), rankTwo.error.c_str());
        QVERIFY2(error.contains("within 0.3 s"), rankTwo.error.c_str());
        // Where it looked: the file's path, or the address it tried.
        const std::string place = spec.kind == RendezvousKind::File ? spec.path : spec.address().substr(4);
        QVERIFY2(error.contains(QString::fromStdString(place)), rankTwo.error.c_str());
        QCOMPARE(filesIn(dir), QStringList());  // no marker without rank 0's file
    }

    void aStaleFileOfAnotherRunIsNotTaken() {
        QTemporaryDir dir;
        const RendezvousSpec spec = specOf("file", dir, "42");
        // What rank 0 of run 41 published, as run 41 wrote it (the same code, another run id).
        const RendezvousSpec earlier = specOf("file", dir, "41");
        const std::vector<std::uint8_t> staleBlob = randomBlob(41), blob = randomBlob(42);
        {
            // Run 41's rank 0 publishes, then is stopped before it cleans up: its file stays.
            auto rankZero41 = startRank(earlier, 0, 2, staleBlob, 10s);
            for (int k = 0; k < 500 && !QFileInfo::exists(QString::fromStdString(spec.path)); ++k) std::this_thread::sleep_for(2ms);
            QVERIFY(QFileInfo::exists(QString::fromStdString(spec.path)));
            const QByteArray published = testContents(spec.path);
            QVERIFY(runRank(earlier, 1, 2, {}, 5s).blob == staleBlob);
            QVERIFY(rankZero41.get().blob == staleBlob);
            writeText(spec.path, published.toStdString());
        }
        // Rank 1 of run 42 alone: it must wait, not take run 41's bytes, and say what it found.
        const Outcome alone = runRank(spec, 1, 2, {}, 300ms);
        QVERIFY2(alone.failed(), "rank 1 took the bytes of another run");
        QVERIFY2(QString::fromStdString(alone.error).contains("the file there is from run 41"), alone.error.c_str());
        QVERIFY(QFileInfo::exists(QString::fromStdString(spec.path)));
        QVERIFY(!QFileInfo::exists(QString::fromStdString(spec.path + ".rank1")));
        // Rank 1 first, then rank 0 of run 42, which replaces the stale file: rank 1 gets run 42's bytes.
        auto rankOne = startRank(spec, 1, 2, {}, 10s);
        std::this_thread::sleep_for(100ms);
        const Outcome rankZero = runRank(spec, 0, 2, blob, 10s);
        QVERIFY2(!rankZero.failed(), rankZero.error.c_str());
        const Outcome one = rankOne.get();
        QVERIFY2(!one.failed(), one.error.c_str());
        QVERIFY(one.blob == blob);
        QCOMPARE(filesIn(dir), QStringList());
    }

    void aStaleMarkerOfAnotherRunDoesNotCount() {
        QTemporaryDir dir;
        const RendezvousSpec spec = specOf("file", dir, "42");
        writeText(spec.path + ".rank1", "spyglass rendezvous 1\nrun 41\nrank 1\nworld 2\n");
        const Outcome rankZero = runRank(spec, 0, 2, randomBlob(5), 300ms);
        QVERIFY2(QString::fromStdString(rankZero.error).contains("rank 1 of 2 did not arrive"), "a stale marker counted");
    }

    void aFileOfThisRunAlreadyThereMeansTwoRankZeros() {
        QTemporaryDir dir;
        const RendezvousSpec spec = specOf("file", dir, "42");
        auto first = startRank(spec, 0, 2, randomBlob(1), 2s);
        for (int k = 0; k < 500 && !QFileInfo::exists(QString::fromStdString(spec.path)); ++k) std::this_thread::sleep_for(2ms);
        const Outcome second = runRank(spec, 0, 2, randomBlob(2), 2s);
        QVERIFY2(QString::fromStdString(second.error).contains("another process started as rank 0"), second.error.c_str());
        QVERIFY(runRank(spec, 1, 2, {}, 2s).blob == randomBlob(1));  // the first rank 0's run goes on
        QVERIFY(!first.get().failed());
    }

    void ranksThatDisagreeOnTheWorldSizeAreRefused_data() { kinds(); }
    void ranksThatDisagreeOnTheWorldSizeAreRefused() {
        QTemporaryDir dir;
        const RendezvousSpec spec = specOfThisRow(dir);
        auto rankZero = startRank(spec, 0, 3, randomBlob(1), 2s);
        const Outcome rankOne = runRank(spec, 1, 2, {}, 5s);
        QVERIFY2(QString::fromStdString(rankOne.error).contains("rank 0 was started with world size 3, this rank with 2"),
                 rankOne.error.c_str());
        const Outcome zero = rankZero.get();
        QVERIFY(zero.failed());
        if (spec.kind == RendezvousKind::Tcp)  // rank 0 hears it in the message; through files it only sees the rank missing
            QVERIFY2(QString::fromStdString(zero.error).contains("was started with world size 2, rank 0 with 3"), zero.error.c_str());
    }

    void twoProcessesClaimingOneRankAreRefused_data() { kinds(); }
    void twoProcessesClaimingOneRankAreRefused() {
        QTemporaryDir dir;
        const RendezvousSpec spec = specOfThisRow(dir);
        const std::vector<std::uint8_t> blob = randomBlob(11);
        auto rankZero = startRank(spec, 0, 3, blob, 1500ms);
        const Outcome first = runRank(spec, 1, 3, {}, 5s);
        QVERIFY2(!first.failed() && first.blob == blob, first.error.c_str());
        const Outcome second = runRank(spec, 1, 3, {}, 5s);
        QVERIFY2(second.failed(), "a second rank 1 was let in");
        const Outcome zero = rankZero.get();
        QVERIFY(zero.failed());
        if (spec.kind == RendezvousKind::File) {
            QVERIFY2(QString::fromStdString(second.error).contains("two processes were started with one rank"), second.error.c_str());
            QVERIFY2(QString::fromStdString(zero.error).contains("rank 2 of 3 did not arrive"), zero.error.c_str());
        } else {
            QVERIFY2(QString::fromStdString(second.error).contains("closed the connection without answering"), second.error.c_str());
            QVERIFY2(QString::fromStdString(zero.error).contains("rank 1 (127.0.0.1:") &&
                         QString::fromStdString(zero.error).contains("checked in a second time"),
                     zero.error.c_str());
        }
    }

    void malformedMessagesAreTurnedAway_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("problem");
        QTest::newRow("another protocol") << QByteArray("GET / HTTP/1.0\r\n\r\n") << "does not start with SGRV";
        QTest::newRow("another version") << helloBytes(2, "42", 1, 2) << "version 2";
        QTest::newRow("rank beyond the world") << helloBytes(1, "42", 2, 2) << "rank 2 in a world of 2";
        QTest::newRow("no world") << helloBytes(1, "42", 0, 0) << "world size 0";
        QTest::newRow("huge blob") << helloBytes(1, "42", 1, 2, 1u << 30).left(20) << "bytes to share";
        QTest::newRow("empty run id") << helloBytes(1, "", 1, 2) << "a run id of 0 characters";
        QTest::newRow("run id with a newline") << helloBytes(1, "4\n", 1, 2) << "the run id holds";
        QTest::newRow("cut short") << helloBytes(1, "42", 1, 2).left(21) << "closed before a whole message";
    }
    void malformedMessagesAreTurnedAway() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const RendezvousSpec spec = specOf("tcp", dir, "42");
        const std::vector<std::uint8_t> blob = randomBlob(8);
        auto rankZero = startRank(spec, 0, 2, blob, 1s);
        QCOMPARE(sendRaw(spec.port, bytes), QByteArray());  // no answer: the connection is just closed
        const Outcome zero = rankZero.get();
        // Not counted as rank 1, and rank 0's timeout tells what it turned away.
        QVERIFY2(QString::fromStdString(zero.error).contains("rank 1 of 2 did not arrive"), zero.error.c_str());
        QVERIFY2(QString::fromStdString(zero.error).contains("turned away 1 connection"), zero.error.c_str());
        QVERIFY2(QString::fromStdString(zero.error).contains(problem), zero.error.c_str());
    }

    void aStrangerDoesNotStopTheRun() {
        QTemporaryDir dir;
        const RendezvousSpec spec = specOf("tcp", dir, "42");
        const std::vector<std::uint8_t> blob = randomBlob(9);
        auto rankZero = startRank(spec, 0, 2, blob, 5s);
        QCOMPARE(sendRaw(spec.port, "SSH-2.0-OpenSSH_9.6\r\n"), QByteArray());
        const Outcome one = runRank(spec, 1, 2, {}, 5s);
        QVERIFY2(!one.failed() && one.blob == blob, one.error.c_str());
        QVERIFY(!rankZero.get().failed());
    }

    void aRankOfAnotherRunIsToldAndNotCounted() {
        QTemporaryDir dir;
        const RendezvousSpec spec = specOf("tcp", dir, "42");
        RendezvousSpec other = spec;
        other.runId = "41";
        auto rankZero = startRank(spec, 0, 2, randomBlob(4), 1500ms);
        const Outcome stranger = runRank(other, 1, 2, {}, 5s);
        QVERIFY2(QString::fromStdString(stranger.error).contains("serves run 42, not this one"), stranger.error.c_str());
        QVERIFY(stranger.blob.empty());
        QVERIFY2(QString::fromStdString(rankZero.get().error).contains("rank 1 of 2 did not arrive"), "another run's rank counted");
    }

    void aMalformedAnswerIsRefusedByTheRank() {
        // A listener that is not rank 0 (another service on the port) answers with bytes of its own.
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        QVERIFY(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        QVERIFY(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
        QVERIFY(::listen(fd, 4) == 0);
        std::thread service([fd] {
            const int client = ::accept(fd, nullptr, nullptr);
            const char reply[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
            ::send(client, reply, sizeof reply - 1, MSG_NOSIGNAL);
            ::close(client);
        });
        const RendezvousSpec spec = parseRendezvousSpec("tcp:127.0.0.1:" + std::to_string(ntohs(address.sin_port)), "42");
        const Outcome rank = runRank(spec, 1, 2, {}, 2s);
        service.join();
        ::close(fd);
        QVERIFY2(QString::fromStdString(rank.error).contains("is not a rendezvous message"), rank.error.c_str());
    }

    void argumentsOutOfRangeAreRefused() {
        QTemporaryDir dir;
        const RendezvousSpec spec = specOf("file", dir);
        QVERIFY(QString::fromStdString(runRank(spec, 4, 4, {}, 1s).error).contains("rank 4 is outside 0..3"));
        QVERIFY(QString::fromStdString(runRank(spec, -1, 4, {}, 1s).error).contains("rank -1 is outside"));
        QVERIFY(QString::fromStdString(runRank(spec, 0, 0, {}, 1s).error).contains("world size must be at least 1"));
        QVERIFY(QString::fromStdString(runRank(spec, 0, 2, std::vector<std::uint8_t>(kMaxRendezvousBlob + 1), 1s).error)
                    .contains("at most 65536 bytes"));
        RendezvousSpec handMade = spec;
        handMade.runId = "4\nworld 9";  // would add a line to the file
        QVERIFY(QString::fromStdString(runRank(handMade, 0, 2, {}, 1s).error).contains("the run id must be 1 to 128 letters"));
        handMade.runId.clear();
        QVERIFY(QString::fromStdString(runRank(handMade, 1, 2, {}, 1s).error).contains("the run id must be"));
    }

private:
    static QByteArray testContents(const std::string& path) {
        QFile file(QString::fromStdString(path));
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }
};

// The test binary is also the other ranks of processesMeetToo:
//   tst_rendezvous --rendezvous-rank SPEC RUN_ID RANK WORLD   prints rank 0's bytes in hex.
static int runAsRank(char** argv) {
    try {
        const RendezvousSpec spec = parseRendezvousSpec(argv[2], argv[3]);
        const std::vector<std::uint8_t> blob = exchangeThroughRendezvous(spec, std::atoi(argv[4]), std::atoi(argv[5]), {}, 10s);
        std::printf("%s\n", QByteArray(reinterpret_cast<const char*>(blob.data()), qsizetype(blob.size())).toHex().constData());
        return 0;
    } catch (const Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}

int main(int argc, char** argv) {
    if (argc == 6 && std::strcmp(argv[1], "--rendezvous-rank") == 0) return runAsRank(argv);
    QCoreApplication app(argc, argv);
    TestRendezvous test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_rendezvous.moc"
