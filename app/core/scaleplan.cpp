#include "scaleplan.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/segdia.h"

namespace spyglass::app {

PartitionPlan planScale(const Matrix& matrix, const ScalePlanRequest& request) {
    if (matrix.isComplex()) throw InputError("complex matrices have no real SpMV here, so no partitions to plan");
    switch (request.format) {
    case PartitionFormat::Csr: {
        const CsrMatrix<double> csr = toCsr<double>(matrix);
        return planRowPartitions(csrRowCosts(csr), csr.cols, request.partitions, PartitionFormat::Csr, sizeof(double));
    }
    case PartitionFormat::SegmentedDia: {
        const SegmentedDiaMatrix<double> seg =
            buildSegmentedDia(toCoo<double>(expandSymmetry(matrix)), {request.threshold, true, SegmentedDiaRemainder::Auto});
        return planRowPartitions(segmentedDiaRowCosts(seg), seg.cols, request.partitions, PartitionFormat::SegmentedDia, sizeof(double));
    }
    case PartitionFormat::Hybrid: break;
    }
    throw InputError("the Scale tab plans csr and segmented DIA partitions; the hybrid encoding is planned by spyglass-cli power --format hybrid");
}

template <>
ScalePlanJob::ComputeJob(QObject* parent)
    : ComputeJob(
          parent,
          [](const ScalePlanRequest& request, const std::atomic<bool>*) {
              if (!request.matrix) throw InputError("partition planning: no matrix");
              return planScale(*request.matrix, request);
          },
          [](const ScalePlanRequest& request) { return QStringLiteral("planning %1 partitions").arg(request.partitions); }) {}

} // namespace spyglass::app
