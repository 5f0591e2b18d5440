#pragma once
// The shared test matrices the bit-flag SpMV suites run on: the real ones that read (complex has no
// bit-flag SpMV), whose flags stay within 64 MiB, with stored zeros dropped as the bit flags drop them.
#include "bitflag_testing.h"
#include "testmatrices.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <QDir>
#include <QString>

#include <vector>

namespace bitflag_testing {

struct NamedCsr {
    QString name;
    spyglass::CsrMatrix<double> csr;
};

inline std::vector<NamedCsr> realSharedMatrices() {
    const QDir dir(testMatricesDir());
    std::vector<NamedCsr> out;
    for (const QString& name : dir.entryList({"*.mtx"}, QDir::Files, QDir::Name)) {
        spyglass::Matrix file;
        try {
            file = spyglass::readMatrixMarket(dir.filePath(name).toStdString());
        } catch (const spyglass::InputError&) {
            continue;
        }
        if (file.isComplex()) continue;
        if (double(file.rows) * double(file.cols) / 8 > 64.0 * 1024 * 1024) continue;  // flags > 64 MiB
        out.push_back({name, withoutZeros(spyglass::toCsr<double>(file))});
    }
    return out;
}

} // namespace bitflag_testing
