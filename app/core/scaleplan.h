#pragma once
// The row partitions `spyglass-cli power` would cut for the open matrix (spyglass/multigpu.h), for
// the Scale tab's picture and table. A large matrix takes seconds: the tab runs it in a ScalePlanJob.
#include "computejob.h"

#include "spyglass/matrix.h"
#include "spyglass/multigpu.h"

#include <QMetaType>
#include <QString>

#include <memory>

namespace spyglass::app {

struct ScalePlanRequest {
    std::shared_ptr<const Matrix> matrix;  // the job's input; planScale() takes the matrix apart
    PartitionFormat format = PartitionFormat::Csr;
    int partitions = 2;
    Index threshold = 1024;  // segmented DIA rows per segment
};

// Throws InputError for a matrix the format cannot hold (complex values, a hybrid request).
PartitionPlan planScale(const Matrix& matrix, const ScalePlanRequest& request);

using ScalePlanJob = ComputeJob<ScalePlanRequest, PartitionPlan>;
template <> ScalePlanJob::ComputeJob(QObject* parent);  // scaleplan.cpp: the run function and the "doing" text

} // namespace spyglass::app

Q_DECLARE_METATYPE(spyglass::PartitionPlan)
