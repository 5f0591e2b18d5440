#pragma once
// `spyglass-cli spmv` as one rank of a run with one process per GPU (docs/scale.md): this process reads
// only its block of rows of a Matrix Market file (CSR with global columns), builds the whole x as the
// single-process run does, multiplies its rows with cuSPARSE CSR on its GPU, and sends its share of y
// to rank 0, which then holds the y that one process computes.
#include "rankrun.h"

#include "spyglass/matrix.h"
#include "spyglass/measurement.h"

#include <QString>

#include <vector>

namespace spyglass::app {

struct RankSpmvRequest {
    QString source;                     // a Matrix Market file, at the same path for every rank
    RankPlace place;                    // this process's rank, GPU and rendezvous
    QString xSource = QStringLiteral("ones");  // spmvInputVector: ones, random (from seed) or a file
    unsigned seed = 1;
    bool singlePrecision = false;       // f32 values and compute, as --type f32
    bool time = false;                  // also time the multiply as the single-process --time does
    TimingOptions timing;
};

struct RankSpmvOutcome {
    int rank = 0, worldSize = 1, device = 0;
    Index rowBegin = 0, rowEnd = 0;  // this rank's rows
    // Rank 0: the whole y, rank 0's rows first (f32 values exactly, as doubles); the others: empty.
    std::vector<double> y;
    // time: the slowest rank's measurement (cuSPARSE CSR in f64, as --time measures a real matrix) and
    // the bytes its slice moves; which rank that was.
    Measurement timing;
    double bytesMoved = 0;
    int slowestRank = 0;
    QString line;  // the line a rank other than 0 prints: its rows and GPU
};

// Every rank of the run calls this at about the same time. InputError for a file that is not a plain
// real Matrix Market file, and as readMatrixMarketRows, spmvInputVector and the rendezvous give it;
// BackendUnavailableError without a GPU or NCCL. A rank whose own work fails throws its error, the
// others one naming it.
RankSpmvOutcome runSpmvAsRank(const RankSpmvRequest& request);

} // namespace spyglass::app
