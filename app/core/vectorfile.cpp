#include "vectorfile.h"

#include "spyglass/error.h"

#include <QFile>

#include <fstream>

namespace spyglass::app {

std::vector<double> readVectorFile(const QString& file, Index count, const std::string& who) {
    const std::string path = QFile::encodeName(file).toStdString();
    std::ifstream in(path);
    if (!in) throw InputError(who + ": cannot open x file " + path);
    std::vector<double> x(static_cast<std::size_t>(count));
    for (Index j = 0; j < count; ++j) {
        if (!(in >> x[std::size_t(j)]))
            throw InputError(path + ": x needs " + std::to_string(count) + " numbers, value " + std::to_string(j + 1) +
                             " is missing or not a number");
    }
    double extra = 0;
    if (in >> extra) throw InputError(path + ": x has more than the " + std::to_string(count) + " numbers the matrix needs");
    return x;
}

std::vector<std::complex<double>> readComplexVectorFile(const QString& file, Index count, const std::string& who) {
    // Two real numbers per entry, read as one list of 2 count: the same words for a short or long file.
    const std::vector<double> parts = readVectorFile(file, 2 * count, who);
    std::vector<std::complex<double>> x(static_cast<std::size_t>(count));
    for (std::size_t j = 0; j < x.size(); ++j) x[j] = {parts[2 * j], parts[2 * j + 1]};
    return x;
}

} // namespace spyglass::app
