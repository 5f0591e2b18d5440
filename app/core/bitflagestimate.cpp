#include "bitflagestimate.h"

#include <QCoreApplication>

namespace spyglass::app {

double estimateMultiplySeconds(Index rows, Index inner, Index cols) {
    const double words = double((std::max<Index>(inner, 0) + 63) / 64);
    return double(std::max<Index>(rows, 0)) * double(std::max<Index>(cols, 0)) * words * kMultiplySecondsPerWordStep;
}

QString longWorkWarning(BitFlagOp op, Index rows, Index cols) {
    if (op != BitFlagOp::Multiply || rows != cols) return {};  // A · A needs a square A
    const double seconds = estimateMultiplySeconds(rows, cols, cols);
    if (seconds < kLongWorkSeconds) return {};
    const QString time = seconds < 120 ? QCoreApplication::translate("BitFlagEstimate", "%1 s").arg(seconds, 0, 'f', 0)
                                       : QCoreApplication::translate("BitFlagEstimate", "%1 min").arg(seconds / 60, 0, 'f', 0);
    return QCoreApplication::translate("BitFlagEstimate",
                                       "A · A will take about %1 on the CPU reference (%2 x %3 outputs, each over %4 flag words; "
                                       "rough, from the shape, not the nonzeros). Cancel stops it.")
        .arg(time)
        .arg(rows)
        .arg(cols)
        .arg((cols + 63) / 64);
}

} // namespace spyglass::app
