#pragma once
// Where the test matrices are: $SPYGLASS_DATA/matrices when set (bundles run on a GPU machine),
// else the repository's tests/data/matrices (compile definition SPYGLASS_MATRICES_DIR).
#include <QByteArray>
#include <QDir>
#include <QFileInfo>
#include <QString>

inline QString testMatricesDir() {
    const QByteArray data = qgetenv("SPYGLASS_DATA");
    return data.isEmpty() ? QStringLiteral(SPYGLASS_MATRICES_DIR) : QString::fromLocal8Bit(data) + QStringLiteral("/matrices");
}

// One file of that set by name ("west0479.mtx").
inline QString sharedMatrix(const char* name) {
    return QDir::cleanPath(testMatricesDir() + QLatin1Char('/') + QLatin1String(name));
}

// Why a test's data file cannot be used ("" when it is there), naming where it was looked for.
inline QString missingTestData(const QString& path) {
    if (QFileInfo::exists(path)) return {};
    return QStringLiteral("test data missing: %1 (SPYGLASS_DATA=%2; a bundle needs --data with the matrices)")
        .arg(path, QString::fromLocal8Bit(qgetenv("SPYGLASS_DATA")));
}

// Fails the test function, with that message, when the file is missing: a reader throwing out of a
// test function would abort the whole suite instead (Qt Test does not catch it).
#define REQUIRE_TEST_DATA(path) QVERIFY2(missingTestData(path).isEmpty(), qPrintable(missingTestData(path)))
