#pragma once
// Where the test matrices are: $SPYGLASS_DATA/matrices when set (bundles run on a GPU machine),
// else the repository's tests/data/matrices (compile definition SPYGLASS_MATRICES_DIR).
#include <QByteArray>
#include <QDir>
#include <QString>

inline QString testMatricesDir() {
    const QByteArray data = qgetenv("SPYGLASS_DATA");
    return data.isEmpty() ? QStringLiteral(SPYGLASS_MATRICES_DIR) : QString::fromLocal8Bit(data) + QStringLiteral("/matrices");
}

// One file of that set by name ("west0479.mtx").
inline QString sharedMatrix(const char* name) {
    return QDir::cleanPath(testMatricesDir() + QLatin1Char('/') + QLatin1String(name));
}
