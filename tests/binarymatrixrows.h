#pragma once
// Binary test inputs as data-driven tables, for the suites that detect, encode or multiply binary
// patterns: the shared matrices that are binary (pattern files: every stored entry is one), and
// generated blocky matrices of given shapes.
#include "testmatrices.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/matrixmarket.h"

#include <QtTest>

#include <cstdint>
#include <initializer_list>

namespace binarymatrixrows {

// One row per binary shared matrix, in a column "file".
inline void addSharedRows() {
    QTest::addColumn<QString>("file");
    for (const char* name : {"cover.mtx", "karate.mtx", "luxembourg.mtx", "pushpull.mtx", "sparse-images-1024_subset.mtx"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

// The current row's shared matrix as a binary pattern.
inline spyglass::BinaryPattern sharedPatternOfRow() {
    QFETCH(QString, file);
    return spyglass::binaryPatternFromMatrix(
        spyglass::readMatrixMarket((testMatricesDir() + QLatin1Char('/') + file).toStdString()));
}

// An n x n blocky matrix to generate: so many shapes of each kind, of blockSize, and scattered ones.
inline spyglass::BlockyMatrixSpec squareBlockySpec(spyglass::Index n, int rectangles, int triangles, int bands,
                                                   spyglass::Index blockSize, spyglass::Count scattered) {
    spyglass::BlockyMatrixSpec spec{n, n, rectangles, triangles, bands, blockSize};
    spec.scattered = scattered;
    return spec;
}

// One generated blocky matrix of a table: its row name, the generator's seed and the size.
struct BlockyShape {
    const char* name;
    int seed;
    spyglass::Index rows, cols;
};

// One row per shape, in a column "spec": planted (what to plant: shapes, fill, scattered ones) with
// the shape's size and seed.
inline void addBlockyRows(const spyglass::BlockyMatrixSpec& planted, std::initializer_list<BlockyShape> shapes) {
    QTest::addColumn<spyglass::BlockyMatrixSpec>("spec");
    for (const BlockyShape& shape : shapes) {
        spyglass::BlockyMatrixSpec spec = planted;
        spec.rows = shape.rows;
        spec.cols = shape.cols;
        spec.seed = static_cast<std::uint64_t>(shape.seed);
        QTest::newRow(shape.name) << spec;
    }
}

} // namespace binarymatrixrows

Q_DECLARE_METATYPE(spyglass::BlockyMatrixSpec)
