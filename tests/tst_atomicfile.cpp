// Atomic writes: the target holds either the old or the complete new contents, failures name the
// path and the system error, and no temporary file is left behind either way.
#include "spyglass/atomicfile.h"
#include "spyglass/error.h"

#include <QtTest>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <fstream>
#include <random>
#include <string>

using namespace spyglass;

namespace {

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

QStringList entriesOf(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

std::string randomBytes(std::size_t size, unsigned seed) {
    std::mt19937 random(seed);
    std::string bytes(size, '\0');
    for (char& c : bytes) {
        c = static_cast<char>(random() & 0xff);
    }
    return bytes;
}

} // namespace

class TestAtomicFile : public QObject {
    Q_OBJECT
private slots:
    void writesExactBytesIncludingNulAndEmpty() {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/data.bin").toStdString();
        const std::string bytes = randomBytes(1234567, 11);
        writeFileAtomically(path, bytes);
        QVERIFY(readAll(path) == bytes);
        writeFileAtomically(path, std::string_view());
        QCOMPARE(QFileInfo(QString::fromStdString(path)).size(), qint64(0));
        QCOMPARE(entriesOf(dir.path()), QStringList{"data.bin"});
    }

    void replacingKeepsThePermissionsOfTheOldFile() {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/kept.txt").toStdString();
        writeFileAtomically(path, "old");
        QVERIFY(::chmod(path.c_str(), 0640) == 0);
        writeFileAtomically(path, "new contents");
        struct stat info {};
        QVERIFY(::stat(path.c_str(), &info) == 0);
        QCOMPARE(info.st_mode & 07777, mode_t(0640));
        QCOMPARE(readAll(path), std::string("new contents"));
    }

    void newFileIsReadableByOthers() {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/fresh.txt").toStdString();
        writeFileAtomically(path, "x");
        struct stat info {};
        QVERIFY(::stat(path.c_str(), &info) == 0);
        QVERIFY((info.st_mode & S_IROTH) != 0);  // mkstemp's private 0600 must not leak through
    }

    void directoryTargetFailsNamingPathAndStaysIntact() {
        QTemporaryDir dir;
        const QString target = dir.path() + "/folder";
        QVERIFY(QDir().mkdir(target));
        QVERIFY(QFile(target + "/inside.txt").open(QIODevice::WriteOnly));
        try {
            writeFileAtomically(target.toStdString(), "data");
            QFAIL("wrote over a directory");
        } catch (const Error& error) {
            QVERIFY2(QString(error.what()).contains(target), error.what());
            QVERIFY2(QString(error.what()).contains(std::strerror(EISDIR)), error.what());
        }
        QVERIFY(QFileInfo(target).isDir());
        QVERIFY(QFileInfo::exists(target + "/inside.txt"));
        QCOMPARE(entriesOf(dir.path()), QStringList{"folder"});
    }

    void missingOrNonDirectoryParentFailsWithSystemError() {
        QTemporaryDir dir;
        const std::string missing = (dir.path() + "/no/such/dir/file.txt").toStdString();
        try {
            writeFileAtomically(missing, "data");
            QFAIL("wrote into a missing folder");
        } catch (const Error& error) {
            QVERIFY2(QString(error.what()).contains(QString::fromStdString(missing)), error.what());
            QVERIFY2(QString(error.what()).contains(std::strerror(ENOENT)), error.what());
        }
        const std::string file = (dir.path() + "/plain.txt").toStdString();
        writeFileAtomically(file, "I am a file");
        QVERIFY_THROWS_EXCEPTION(Error, writeFileAtomically(file + "/child.txt", "data"));
        QCOMPARE(readAll(file), std::string("I am a file"));
    }

    void failedWriteLeavesOldFileAndNoTemporary() {
        // A file-size limit makes write() fail part way (EFBIG) even for root, like a full disk.
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/precious.mtx").toStdString();
        const std::string old = "the old, complete contents\n";
        writeFileAtomically(path, old);
        struct rlimit saved {};
        QVERIFY(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
        const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit small = saved;
        small.rlim_cur = 4096;
        QVERIFY(::setrlimit(RLIMIT_FSIZE, &small) == 0);
        bool threw = false;
        std::string message;
        try {
            writeFileAtomically(path, randomBytes(1 << 20, 3));
        } catch (const Error& error) {
            threw = true;
            message = error.what();
        }
        ::setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, previousHandler);
        QVERIFY(threw);
        QVERIFY2(QString::fromStdString(message).contains(QString::fromStdString(path)), message.c_str());
        QVERIFY2(QString::fromStdString(message).contains(std::strerror(EFBIG)), message.c_str());
        QCOMPARE(readAll(path), old);
        QCOMPARE(entriesOf(dir.path()), QStringList{"precious.mtx"});
    }

    void readOnlyFolderFailsAndKeepsOldFile() {
        if (::geteuid() == 0) {
            QSKIP("root may write into read-only folders");
        }
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/ro.txt").toStdString();
        writeFileAtomically(path, "old");
        QVERIFY(::chmod(dir.path().toLocal8Bit().constData(), 0555) == 0);
        QVERIFY_THROWS_EXCEPTION(Error, writeFileAtomically(path, "new"));
        ::chmod(dir.path().toLocal8Bit().constData(), 0755);
        QCOMPARE(readAll(path), std::string("old"));
    }
};

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "tst_atomicfile.moc"
