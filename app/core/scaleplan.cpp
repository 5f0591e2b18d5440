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

} // namespace spyglass::app
