#include "partitionedmatrix.h"

#include "checkedwrite.h"
#include "hybriddetectionjob.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/segdia.h"

#include <memory>

namespace spyglass::app {

template <typename T>
PartitionedMatrix<T> buildPartitionedMatrix(const Matrix& matrix, const QString& source, const PartitionRequest& request) {
    switch (request.format) {
    case PartitionFormat::Csr: return partitionMatrix(toCsr<T>(matrix), request.parts, request.exchange);
    case PartitionFormat::SegmentedDia:
        return partitionMatrix(
            buildSegmentedDia(toCoo<T>(expandSymmetry(matrix)), {request.threshold, true, SegmentedDiaRemainder::Auto}),
            request.parts, request.exchange);
    case PartitionFormat::Hybrid: break;
    }
    if (!matrix.isBinary())
        throw InputError(localPath(source) +
                         ": the partitioned hybrid format takes binary matrices (pattern, or every value 1); use csr or segdia");
    const HybridDetectionRequest detect = detectionRequest(std::make_shared<const Matrix>(matrix), source, request.detection);
    return partitionMatrix<T>(*runHybridDetection(detect).hybrid, request.parts, request.exchange);
}

template PartitionedMatrix<float> buildPartitionedMatrix<float>(const Matrix&, const QString&, const PartitionRequest&);
template PartitionedMatrix<double> buildPartitionedMatrix<double>(const Matrix&, const QString&, const PartitionRequest&);

} // namespace spyglass::app
