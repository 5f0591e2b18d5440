#pragma once
// The sample matrices Spyglass ships (resources/matrices/, made by scripts/make_sample_matrix.py):
// File > Open Sample lists them, and a method tab whose open matrix does not suit it offers the one
// that does. The first is the default sample (opened when the application starts without a file).
#include <QString>
#include <QVector>

namespace spyglass::app {

struct SampleMatrix {
    QString id;           // "valued", "blocks", "stencil"
    QString title;        // menu text
    QString fileName;     // in resources/matrices/
    QString description;  // one line: what it shows, which methods
};

const QVector<SampleMatrix>& sampleMatrices();
// The sample with this id; a default-constructed one (empty id) when there is none.
SampleMatrix sampleMatrix(const QString& id);
// Where the sample's file is: next to the executable (installed layout: ../share/spyglass/ or the
// executable's folder) or in the source tree. Empty when it is not found.
QString samplePath(const QString& id);

} // namespace spyglass::app
