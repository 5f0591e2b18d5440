#pragma once
// How long bit-flag work will take, said before it starts: the CPU reference multiply visits every
// output element and, for each, every flag word of the shared line (R x C x W word steps, whatever
// the nonzeros), so a 24 k-entry matrix of a few thousand rows takes seconds. The panel shows the
// estimate beside Run and in its status while the work runs (Cancel stops it).
#include "core/bitflagjob.h"

#include <QString>

namespace spyglass::app {

// Seconds per word step of the reference multiply, measured with spyglass-cli matop mul --backend cpu
// on a 2-core development machine: bcsstk13 (2003², 1.28e8 steps) 7.7 s, 1138_bus (1138², 2.3e7)
// 1.15 s, olm1000 (1000², 1.6e7) 0.55 s: 34-60 ns; the larger figure, so the warning errs long.
inline constexpr double kMultiplySecondsPerWordStep = 60e-9;
// Work expected to take longer than this gets a warning with its estimate.
inline constexpr double kLongWorkSeconds = 2.0;

// The reference multiply of an R x K by a K x C matrix: R * C * ceil(K / 64) word steps.
double estimateMultiplySeconds(Index rows, Index inner, Index cols);
// "A · B will take about 9 s on the CPU reference (…); Cancel stops it." for an operation on A with
// B = A expected to pass kLongWorkSeconds; empty otherwise (or when nothing is estimated for it).
QString longWorkWarning(BitFlagOp op, Index rows, Index cols);

} // namespace spyglass::app
