#include "spyglass/matrixgenerators_irregular.h"

#include "spyglass/error.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

namespace spyglass::generators {

CooMatrix<double> powerLawRows(Index rows, Index cols, Index minPerRow, double exponent, Index maxPerRow, std::uint64_t seed) {
    if (rows < 0 || cols < 1 || minPerRow < 1 || maxPerRow < minPerRow || !(exponent > 1.0))
        throw InputError("power-law rows: need rows >= 0, cols >= 1, 1 <= minPerRow <= maxPerRow and exponent > 1 (got " +
                         std::to_string(rows) + ", " + std::to_string(cols) + ", " + std::to_string(minPerRow) + ", " +
                         std::to_string(maxPerRow) + ", " + std::to_string(exponent) + ")");
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::uniform_int_distribution<Index> column(0, cols - 1);
    std::uniform_int_distribution<int> value(1, 8);
    CooMatrix<double> coo;
    coo.rows = rows;
    coo.cols = cols;
    std::vector<Index> picked;
    const Index cap = std::min(maxPerRow, cols);
    for (Index r = 0; r < rows; ++r) {
        const double u = 1.0 - unit(rng);  // (0, 1]
        const double drawn = std::floor(double(minPerRow) * std::pow(u, -1.0 / (exponent - 1.0)));
        const Index length = static_cast<Index>(std::min<double>(drawn, double(cap)));
        picked.clear();
        if (length * 2 > cols) {  // dense row: take a random subset of all columns
            for (Index c = 0; c < cols; ++c) picked.push_back(c);
            std::shuffle(picked.begin(), picked.end(), rng);
            picked.resize(std::size_t(length));
        } else {
            while (Index(picked.size()) < length) {
                picked.push_back(column(rng));
                if (Index(picked.size()) == length) {
                    std::sort(picked.begin(), picked.end());
                    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
                }
            }
        }
        std::sort(picked.begin(), picked.end());
        for (const Index c : picked) {
            coo.rowIndex.push_back(r);
            coo.colIndex.push_back(c);
            coo.values.push_back(double((unit(rng) < 0.5 ? -1 : 1) * value(rng)));
        }
    }
    return coo;
}

} // namespace spyglass::generators
