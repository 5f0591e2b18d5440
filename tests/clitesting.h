#pragma once
// Shared by the suites that run spyglass-cli (or the GUI program) as a user does: a separate process,
// its exit code and both output streams, and the temporary files it reads.
#include "testfiles.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QtTest>

#include <initializer_list>
#include <string>

namespace clitesting {

// What a run left. Text is QByteArray for suites that compare bytes, QString for those that match text.
template <typename Text = QByteArray>
struct CliResult {
    int exitCode = -1;  // -1: crashed or hung (see status)
    Text out, err;
    QString status;     // empty when the program exited normally
    qint64 ms = 0;      // wall time of the run
};

inline void assignText(QByteArray& to, const QByteArray& from) { to = from; }
inline void assignText(QString& to, const QByteArray& from) { to = QString::fromUtf8(from); }

// The environment with every way to reach a display server removed: the CLI must not need one.
inline QProcessEnvironment headlessEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    return env;
}

template <typename Text = QByteArray>
CliResult<Text> runProgram(const QString& program, const QStringList& args,
                           const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                           int timeoutMs = 120000) {
    QProcess process;
    process.setProcessEnvironment(env);
    QElapsedTimer timer;
    timer.start();
    process.start(program, args);
    CliResult<Text> result;
    if (!process.waitForFinished(timeoutMs) || process.exitStatus() != QProcess::NormalExit) {
        result.status = process.state() == QProcess::NotRunning
                            ? QStringLiteral("crashed: ") + process.errorString()
                            : QStringLiteral("no exit within %1 s").arg(timeoutMs / 1000);
        assignText(result.err, process.readAllStandardError());
        return result;
    }
    result.ms = timer.elapsed();
    result.exitCode = process.exitCode();
    assignText(result.out, process.readAllStandardOutput());
    assignText(result.err, process.readAllStandardError());
    return result;
}

// spyglass-cli as the build tree places it (build/tests -> build/app); empty when it is not built.
// The system environment without any launcher's variables (torchrun's, Slurm's): a case that runs
// spyglass-cli as one rank of several adds its own.
inline QProcessEnvironment launcherFreeEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "TORCHELASTIC_RUN_ID", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
                             "SLURM_JOB_ID"})
        env.remove(QString::fromLatin1(name));
    return env;
}

inline QString builtCliPath() {
    const QString cli = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/spyglass-cli");
    return QFileInfo(cli).isExecutable() ? cli : QString();
}

// A usage error: exit code 2, the reason on stderr, nothing on stdout.
inline void verifyUsageError(const CliResult<QByteArray>& r, const QString& message) {
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QVERIFY2(r.out.isEmpty(), r.out.constData());
}

// The columns of a usage-error table: the arguments, and what stderr must contain.
inline void addUsageErrorColumns() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
}

// Runs the current row of that table through run (a suite's own runner) and verifies the usage error.
template <typename Run> void verifyUsageErrorOfRow(Run run) {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    verifyUsageError(run(args), message);
}

// A --help run: exit code 0 and each of lines on stdout.
inline void verifyHelpLists(const CliResult<QByteArray>& r, std::initializer_list<const char*> lines) {
    QCOMPARE(r.exitCode, 0);
    for (const char* line : lines) QVERIFY2(r.out.contains(line), line);
}

// Finds the built spyglass-cli into var, or skips the suite; a macro because QSKIP returns from the
// test function that calls it.
#define CLITESTING_REQUIRE_CLI(var)                                                                \
    do {                                                                                           \
        (var) = clitesting::builtCliPath();                                                        \
        if ((var).isEmpty()) QSKIP("spyglass-cli is not built next to the tests");                 \
    } while (false)

// The one JSON object a --json run printed; an empty object (and a warning) when it printed anything else.
inline QJsonObject jsonObjectOf(const QByteArray& out) {
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(out, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject()) qWarning() << "not one JSON object:" << out.left(400);
    return doc.object();
}

// The JSON object a --json run of command printed; a failed run is reported as a warning and gives
// what it printed all the same (usually nothing: an empty object the caller's checks then fail on).
inline QJsonObject jsonOfRun(const CliResult<QByteArray>& r, const char* command) {
    if (r.exitCode != 0) qWarning() << command << "failed:" << r.exitCode << r.err;
    return jsonObjectOf(r.out);
}

// The suites that run the CLI write its input files and read its output ones.
using testfiles::contentsOf;
using testfiles::writeBytes;

} // namespace clitesting
