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

} // namespace spyglass::app
