#pragma once
// The figures tests/data/matrices/INDEX.md lists for each shared matrix (its first table: size, stored
// entries, entries after expansion, format, field, symmetry), read from that file: the suites check the
// readers against the one copy of the figures that describes the files, not against copies of it.
#include "testmatrices.h"
#include "spyglass/matrix.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QVector>

#include <initializer_list>
#include <utility>

// One row of the table.
struct IndexedMatrix {
    QString file;
    int rows = 0, cols = 0;
    // Entries the file holds: the header's nnz, or for an array file its values (the whole matrix, or
    // the lower triangle of a symmetric or Hermitian one, the strict lower triangle of a skew one).
    qlonglong stored = 0;
    qlonglong expanded = 0;  // "entries after expansion"
    spyglass::Layout layout = spyglass::Layout::Coordinate;
    spyglass::Field field = spyglass::Field::Real;
    spyglass::Symmetry symmetry = spyglass::Symmetry::General;
};

// The rows of the table, or the reason it could not be read whole. A suite checks `error` in a test of
// its own, so that a row that does not parse fails a test instead of quietly dropping out of the data.
struct MatrixIndex {
    QVector<IndexedMatrix> matrices;
    QString error;
};

namespace matrixindex {

// The enumerator spelled `word` in the table; false when the word is not one of `names`.
template <typename Enum>
bool decode(const QString& word, std::initializer_list<std::pair<const char*, Enum>> names, Enum& out) {
    for (const auto& [name, value] : names)
        if (word == QLatin1String(name)) {
            out = value;
            return true;
        }
    return false;
}

// Values an array file holds for its shape and symmetry (it has no nnz in its size line).
inline qlonglong arrayValues(const IndexedMatrix& m) {
    const qlonglong r = m.rows, c = m.cols;
    switch (m.symmetry) {
    case spyglass::Symmetry::General: return r * c;
    case spyglass::Symmetry::SkewSymmetric: return r * (r - 1) / 2;
    default: return r * (r + 1) / 2;
    }
}

// One table line: | `name` | R x C | nnz or (array) | expanded | format | field | symmetry | ...
inline bool parseRow(const QString& line, IndexedMatrix& m) {
    using namespace spyglass;
    const QStringList cells = line.split(QLatin1Char('|'));
    if (cells.size() < 9) return false;
    auto cell = [&](int k) { return cells[k].trimmed(); };
    m.file = cell(1).remove(QLatin1Char('`'));
    const QRegularExpressionMatch size = QRegularExpression(QStringLiteral("^(\\d+) x (\\d+)$")).match(cell(2));
    bool expandedOk = false;
    m.expanded = cell(4).toLongLong(&expandedOk);
    if (m.file.isEmpty() || !size.hasMatch() || !expandedOk) return false;
    m.rows = size.captured(1).toInt();
    m.cols = size.captured(2).toInt();
    if (!decode(cell(5), {{"coordinate", Layout::Coordinate}, {"array", Layout::Array}}, m.layout) ||
        !decode(cell(6), {{"real", Field::Real}, {"integer", Field::Integer}, {"complex", Field::Complex}, {"pattern", Field::Pattern}},
                m.field) ||
        !decode(cell(7),
                {{"general", Symmetry::General},
                 {"symmetric", Symmetry::Symmetric},
                 {"skew-symmetric", Symmetry::SkewSymmetric},
                 {"hermitian", Symmetry::Hermitian}},
                m.symmetry))
        return false;
    if (m.layout == Layout::Array) {
        m.stored = arrayValues(m);
        return cell(3) == QLatin1String("(array)");
    }
    bool storedOk = false;
    m.stored = cell(3).toLongLong(&storedOk);
    return storedOk;
}

} // namespace matrixindex

// Every row of INDEX.md's first table, in its order; the error names the first line that does not
// parse, or a count that differs from the "N files" the file states. The INDEX.md beside the matrices
// is read, or the repository's when a data folder (SPYGLASS_DATA) came without one.
inline MatrixIndex sharedMatrixIndex() {
    MatrixIndex index;
    QString path = testMatricesDir() + QStringLiteral("/INDEX.md");
    if (!QFileInfo::exists(path)) path = QStringLiteral(SPYGLASS_SOURCE_DIR "/tests/data/matrices/INDEX.md");
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        index.error = QStringLiteral("cannot read %1").arg(path);
        return index;
    }
    const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
    int statedCount = -1;
    bool inTable = false;
    for (const QString& line : lines) {
        const QRegularExpressionMatch count = QRegularExpression(QStringLiteral("^(\\d+) files,")).match(line);
        if (count.hasMatch()) statedCount = count.captured(1).toInt();
        if (line.startsWith(QLatin1String("| name | rows x cols |"))) {
            inTable = true;
            continue;
        }
        if (!inTable || line.startsWith(QLatin1String("|---"))) continue;
        if (!line.startsWith(QLatin1Char('|'))) break;  // the end of the first table
        IndexedMatrix m;
        if (!matrixindex::parseRow(line, m)) {
            index.error = QStringLiteral("%1: a row that does not parse: %2").arg(path, line);
            return index;
        }
        index.matrices.append(m);
    }
    if (index.matrices.isEmpty() || index.matrices.size() != statedCount)
        index.error = QStringLiteral("%1: %2 rows in the table, the file states %3 files").arg(path).arg(index.matrices.size()).arg(statedCount);
    return index;
}
