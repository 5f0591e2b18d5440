#pragma once
// One data row of the suites that check a computation on seeded random sparse matrices against a
// brute-force oracle: the matrix's shape, how many entries to draw, its field and symmetry, and the
// seed. One column of this type replaces a column per field, and the rows read as a table.
#include "spyglass/matrix.h"

#include <QMetaType>

struct RandomMatrixCase {
    int rows = 0, cols = 0;
    int entries = 0;  // entries drawn (duplicates included)
    spyglass::Symmetry symmetry = spyglass::Symmetry::General;
    spyglass::Field field = spyglass::Field::Real;
    unsigned seed = 0;  // 0: the suite derives one from the shape
};
Q_DECLARE_METATYPE(RandomMatrixCase)
