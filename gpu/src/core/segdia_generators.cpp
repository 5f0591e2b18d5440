// Stencil and CFD-like generators for the method-B tests and benchmarks.
#include "spyglass/segdia_generators.h"

#include "spyglass/error.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace spyglass::generators {

namespace {

void requireGrid(const char* what, Count points) {
    if (points < 0 || points > Count(2147483647))
        throw InputError(std::string(what) + ": grid of " + std::to_string(points) + " points does not fit 32-bit rows");
}

template <typename Neighbour>
CooMatrix<double> stencil(Index nx, Index ny, Index nz, int reach, Neighbour weight) {
    CooMatrix<double> coo;
    const Count n = Count(nx) * ny * nz;
    coo.rows = coo.cols = static_cast<Index>(n);
    const Count perRow = Count(2 * reach + 1) * (2 * reach + 1) * (nz > 1 ? 2 * reach + 1 : 1);
    coo.rowIndex.reserve(n * perRow);
    coo.colIndex.reserve(n * perRow);
    coo.values.reserve(n * perRow);
    for (Index k = 0; k < nz; ++k)
        for (Index j = 0; j < ny; ++j)
            for (Index i = 0; i < nx; ++i) {
                const Index row = static_cast<Index>((Count(k) * ny + j) * nx + i);
                // Loop order gives ascending columns within the row.
                for (int dk = -reach; dk <= reach; ++dk)
                    for (int dj = -reach; dj <= reach; ++dj)
                        for (int di = -reach; di <= reach; ++di) {
                            const double w = weight(di, dj, dk);
                            if (w == 0.0) continue;
                            const Index ii = i + di, jj = j + dj, kk = k + dk;
                            if (ii < 0 || ii >= nx || jj < 0 || jj >= ny || kk < 0 || kk >= nz) continue;
                            coo.rowIndex.push_back(row);
                            coo.colIndex.push_back(static_cast<Index>((Count(kk) * ny + jj) * nx + ii));
                            coo.values.push_back(w);
                        }
            }
    return coo;
}

// Row r of a band of half-width reach in a square matrix: -1 off the diagonal, 2 reach + 1 on it.
void addBandRow(CooMatrix<double>& coo, Index r, int reach) {
    for (int d = -reach; d <= reach; ++d) {
        const Count c = Count(r) + d;
        if (c < 0 || c >= coo.rows) continue;
        coo.rowIndex.push_back(r);
        coo.colIndex.push_back(static_cast<Index>(c));
        coo.values.push_back(d == 0 ? 2.0 * reach + 1 : -1.0);
    }
}

} // namespace

CooMatrix<double> laplacian2d(Index nx, Index ny) {
    requireGrid("laplacian2d", Count(nx) * ny);
    return stencil(nx, ny, 1, 1, [](int di, int dj, int dk) {
        if (dk != 0) return 0.0;
        if (di == 0 && dj == 0) return 4.0;
        return (di == 0) != (dj == 0) ? -1.0 : 0.0;
    });
}

CooMatrix<double> laplacian3d(Index nx, Index ny, Index nz) {
    requireGrid("laplacian3d", Count(nx) * ny * nz);
    return stencil(nx, ny, nz, 1, [](int di, int dj, int dk) {
        const int away = (di != 0) + (dj != 0) + (dk != 0);
        return away == 0 ? 6.0 : away == 1 ? -1.0 : 0.0;
    });
}

CooMatrix<double> stencil27(Index nx, Index ny, Index nz) {
    requireGrid("stencil27", Count(nx) * ny * nz);
    return stencil(nx, ny, nz, 1, [](int di, int dj, int dk) { return di == 0 && dj == 0 && dk == 0 ? 26.0 : -1.0; });
}

CooMatrix<double> cfdLike(Index nx, Index ny, Index nz, int brokenDiagonals, int scatteredPoints, std::uint64_t seed) {
    requireGrid("cfdLike", Count(nx) * ny * nz);
    const CooMatrix<double> base = laplacian3d(nx, ny, nz);
    const Index n = base.rows;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    // Per row: its stencil entries plus whatever broken diagonals and scattered points land there.
    std::vector<std::vector<std::pair<Index, double>>> extra(static_cast<std::size_t>(n));
    // Broken diagonals: offsets near the stencil's (the couplings of a second-order or skewed
    // scheme), present only on pieces of rows, as where the hull cuts the grid.
    const Index plane = nx * ny;
    const Index candidates[] = {2, -2, nx + 1, -(nx + 1), nx - 1, -(nx - 1), plane + 1, -(plane + 1),
                                plane + nx, -(plane + nx), 2 * nx, -2 * nx};
    for (int d = 0; d < brokenDiagonals; ++d) {
        const Index offset = candidates[d % 12] + (d / 12) * 3;
        Index row = static_cast<Index>(rng() % 4096);
        while (row < n) {
            const Index piece = 2000 + static_cast<Index>(rng() % 6000);
            for (Index r = row; r < std::min<Index>(n, row + piece); ++r) {
                const Count col = Count(r) + offset;
                if (col >= 0 && col < n) extra[r].emplace_back(static_cast<Index>(col), value(rng));
            }
            row += piece + 2 * piece + static_cast<Index>(rng() % 4096);  // gaps twice as long as pieces
        }
    }
    for (int p = 0; p < scatteredPoints; ++p) {
        const Index r = static_cast<Index>(rng() % static_cast<std::uint64_t>(n));
        const Index c = static_cast<Index>(rng() % static_cast<std::uint64_t>(n));
        extra[r].emplace_back(c, value(rng));
    }
    CooMatrix<double> coo;
    coo.rows = coo.cols = n;
    coo.rowIndex.reserve(base.values.size() * 2);
    coo.colIndex.reserve(base.values.size() * 2);
    coo.values.reserve(base.values.size() * 2);
    std::size_t k = 0;
    for (Index r = 0; r < n; ++r) {
        auto& row = extra[r];
        for (; k < base.values.size() && base.rowIndex[k] == r; ++k) row.emplace_back(base.colIndex[k], base.values[k]);
        std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        // A scattered point may land on a stencil entry: keep one entry per position.
        for (std::size_t e = 0; e < row.size(); ++e) {
            if (e > 0 && row[e].first == row[e - 1].first) {
                coo.values.back() += row[e].second;
                continue;
            }
            coo.rowIndex.push_back(r);
            coo.colIndex.push_back(row[e].first);
            coo.values.push_back(row[e].second);
        }
        std::vector<std::pair<Index, double>>().swap(row);
    }
    return coo;
}

CooMatrix<double> randomBanded(Index rows, Index cols, int diagonals, double fill, int scattered, std::uint64_t seed) {
    if (rows < 0 || cols < 0) throw InputError("randomBanded: negative size");
    CooMatrix<double> coo;
    coo.rows = rows;
    coo.cols = cols;
    if (rows == 0 || cols == 0) return coo;
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> value(1, 8);
    std::bernoulli_distribution keep(fill), negative(0.5);
    std::vector<Index> offsets;
    for (int d = 0; d < diagonals; ++d)
        offsets.push_back(static_cast<Index>(Count(rng() % (Count(rows) + cols - 1)) - (rows - 1)));
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    std::vector<std::vector<Index>> columns(static_cast<std::size_t>(rows));
    for (Index r = 0; r < rows; ++r)
        for (const Index offset : offsets) {
            const Count c = Count(r) + offset;
            if (c >= 0 && c < cols && keep(rng)) columns[r].push_back(static_cast<Index>(c));
        }
    for (int p = 0; p < scattered; ++p)
        columns[rng() % static_cast<std::uint64_t>(rows)].push_back(static_cast<Index>(rng() % static_cast<std::uint64_t>(cols)));
    for (Index r = 0; r < rows; ++r) {
        auto& row = columns[r];
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
        for (const Index c : row) {
            coo.rowIndex.push_back(r);
            coo.colIndex.push_back(c);
            coo.values.push_back(double(value(rng)) * (negative(rng) ? -1.0 : 1.0));
        }
    }
    return coo;
}

CooMatrix<double> tiledAlongDiagonal(const CooMatrix<double>& block, Index copies) {
    if (copies < 0) throw InputError("tiledAlongDiagonal: negative number of copies " + std::to_string(copies));
    const Count rows = Count(block.rows) * copies, cols = Count(block.cols) * copies;
    if (rows > Count(2147483647) || cols > Count(2147483647))
        throw InputError("tiledAlongDiagonal: " + std::to_string(copies) + " copies of " + std::to_string(block.rows) +
                         " x " + std::to_string(block.cols) + " do not fit 32-bit rows and columns");
    std::vector<std::size_t> order(block.values.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return block.rowIndex[a] != block.rowIndex[b] ? block.rowIndex[a] < block.rowIndex[b]
                                                      : block.colIndex[a] < block.colIndex[b];
    });
    CooMatrix<double> coo;
    coo.rows = static_cast<Index>(rows);
    coo.cols = static_cast<Index>(cols);
    const std::size_t total = order.size() * static_cast<std::size_t>(copies);
    coo.rowIndex.reserve(total);
    coo.colIndex.reserve(total);
    coo.values.reserve(total);
    for (Index c = 0; c < copies; ++c)
        for (std::size_t k : order) {
            coo.rowIndex.push_back(block.rowIndex[k] + c * block.rows);
            coo.colIndex.push_back(block.colIndex[k] + c * block.cols);
            coo.values.push_back(block.values[k]);
        }
    return coo;
}

// Rows in pieces of pieceRows: most pieces tridiagonal, one in eight (at seeded random places) a
// 33-diagonal band. The diagonal set changes every few pieces along the rows, so equal row groups
// (HDIA) differ elevenfold in work, scattered over the whole matrix rather than in one region.
CooMatrix<double> scatteredBands(Index rows, Index pieceRows, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    CooMatrix<double> coo;
    coo.rows = coo.cols = rows;
    int reach = 1;
    for (Index r = 0; r < rows; ++r) {
        if (r % pieceRows == 0) reach = rng() % 8 == 0 ? 16 : 1;
        addBandRow(coo, r, reach);
    }
    return coo;
}

// A wide band over the first eighth of the rows, a narrow one elsewhere: equal row groups (HDIA)
// differ sixfold in work, and the heavy ones sit together.
CooMatrix<double> imbalancedBand(Index rows) {
    CooMatrix<double> coo;
    coo.rows = coo.cols = rows;
    for (Index r = 0; r < rows; ++r) {
        const int reach = r < rows / 8 ? 16 : 2;
        addBandRow(coo, r, reach);
    }
    return coo;
}

} // namespace spyglass::generators
