#pragma once
// What `power` and `spmv --partitions/--gpus` share: their options, and the row partitions they ask
// app/core to cut (app/core/partitionedmatrix.h).
#include "cliargs.h"
#include "hybrid_cli.h"

#include "core/partitionedmatrix.h"

#include <QString>

namespace spyglass::cli::partitioned {

struct Args {
    int gpus = 0;        // --gpus N: GPUs 0..N-1, one partition each (0: not given)
    int partitions = 0;  // --partitions P (0: as many as GPUs, else 1)
    HaloExchange exchange = HaloExchange::Auto;
    bool cpu = false;    // --cpu: the CPU reference even where there is a GPU
    bool given() const { return gpus > 0 || partitions > 0; }
};
Args takeArgs(ArgParser& parser);
// The partitions to cut (checks --gpus against --partitions and the machine).
int partitionCount(const Args& args);
PartitionRunOptions runOptions(const Args& args);
// "cuda" or "cpu" (for printActiveBackend): what runs, given the flags and the machine.
QString backendName(const Args& args);

// format: csr, segdia (threshold rows per segment) or hybrid (binary matrices: dense regions detected
// on the pattern as `spmv --format hybrid` does); the partition count from partitionCount.
app::PartitionRequest request(const Args& args, const QString& format, Index threshold, const hybridcli::DetectionArgs& detection);

} // namespace spyglass::cli::partitioned
