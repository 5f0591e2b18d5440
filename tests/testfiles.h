#pragma once
// Files a suite writes for the code under test to read (bad input, cut or damaged copies, fixtures
// made on the fly), and reading them back: one call each, and a failed write is never silent.
#include <QByteArray>
#include <QFile>
#include <QString>
#include <QtTest>

#include <string>

namespace testfiles {

// Writes bytes to path (replacing what was there); the path when every byte arrived, empty otherwise.
inline QString writeBytes(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
    return file.write(bytes) == bytes.size() ? path : QString();
}

inline QString writeBytes(const QString& path, const std::string& bytes) {
    return writeBytes(path, QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())));
}

// writeBytes for a test body, as QVERIFY(writeFile(...)): true when path now holds every byte.
inline bool writeFile(const QString& path, const QByteArray& bytes) { return !writeBytes(path, bytes).isEmpty(); }

// The whole file; empty when it cannot be read.
inline QByteArray contentsOf(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace testfiles
