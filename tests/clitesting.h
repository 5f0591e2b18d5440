#pragma once
// Shared by the suites that run spyglass-cli (or the GUI program) as a user does: a separate process,
// its exit code and both output streams, and the temporary files it reads.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QtTest>

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

// Writes bytes to path; the path on success, empty when the file could not be opened.
inline QString writeBytes(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write(bytes);
    return path;
}

inline QString writeBytes(const QString& path, const std::string& bytes) {
    return writeBytes(path, QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())));
}

inline QByteArray contentsOf(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace clitesting
