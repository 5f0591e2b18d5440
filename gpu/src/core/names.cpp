// Printable names of the library's enumerations, one table each (see core/enum_names.h).
#include "core/enum_names.h"
#include "spyglass/backend.h"
#include "spyglass/batchedinverse.h"
#include "spyglass/batchedinverse_generators.h"
#include "spyglass/batchedsvd.h"
#include "spyglass/benchmark.h"
#include "spyglass/bitflag.h"
#include "spyglass/container.h"
#include "spyglass/formatcomparison.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/hybrid_spmv.h"
#include "spyglass/matrix.h"
#include "spyglass/multigpu.h"
#include "spyglass/segdia.h"
#include "spyglass/segdia_spmv.h"

namespace spyglass {

const char* toString(Layout layout) { return layout == Layout::Array ? "array" : "coordinate"; }

// spyglass/matrix.h
const char* toString(Field field) {
    return nameOf<Field::Pattern>(field, {"real", "double", "integer", "complex", "pattern"});
}

const char* toString(Symmetry symmetry) {
    return nameOf<Symmetry::Hermitian>(symmetry, {"general", "symmetric", "skew-symmetric", "hermitian"});
}

// spyglass/backend.h
const char* toString(BackendKind kind) {
    return nameOf<BackendKind::Vendor>(kind, {"cpu", "cuda", "vendor"});
}

// spyglass/batchedsvd.h
const char* toString(SvdBackend backend) {
    return nameOf<SvdBackend::CusolverGesvda>(backend, {"cpu", "cuda", "cusolver", "cusolver-gesvda"});
}

const char* toString(SvdStatus status) {
    return nameOf<SvdStatus::NonFiniteInput>(status, {"converged", "not converged", "NaN/Inf input"});
}

const char* toString(SvdVariant variant) {
    return nameOf<SvdVariant::RealEmbedding>(variant, {
        "auto", "block-per-matrix", "register-groups", "block-per-pair", "real-embedding"});
}

// spyglass/batchedinverse.h
const char* toString(InverseBackend backend) {
    return nameOf<InverseBackend::Cublas>(backend, {"cpu", "cuda", "cublas"});
}

const char* toString(InverseKernel kernel) {
    return nameOf<InverseKernel::CublasMatinv>(kernel, {
        "auto", "seed-shared-memory", "thread-per-matrix", "thread-per-matrix-pipelined",
        "lane-group-rows", "cublas-getrf-getri", "cublas-matinv"});
}

// spyglass/multigpu.h
const char* toString(PartitionFormat format) {
    return nameOf<PartitionFormat::Hybrid>(format, {"csr", "segdia", "hybrid"});
}

const char* toString(HaloExchange exchange) {
    return nameOf<HaloExchange::SendRecv>(exchange, {"auto", "all-gather", "send/recv"});
}

const char* toString(PartitionBackend backend) {
    return backend == PartitionBackend::Cuda ? "cuda" : "cpu";
}

// spyglass/hybrid_regions.h
const char* toString(RegionShape shape) {
    return nameOf<RegionShape::Band>(shape, {"rectangle", "triangle", "band"});
}

const char* toString(TriangleCorner corner) {
    return nameOf<TriangleCorner::LowerRight>(corner, {
        "lower-left", "upper-right", "upper-left", "lower-right"});
}

// spyglass/formatcomparison.h
const char* toString(SpmvFormat format) {
    return nameOf<SpmvFormat::BitFlag>(format, {
        "CSR", "plain DIA", "HDIA", "segmented DIA", "segmented DIA (remainder off)", "hybrid binary",
        "hybrid valued", "bit-flag"});
}

const char* formatKey(SpmvFormat format) {
    return nameOf<SpmvFormat::BitFlag>(format, {
        "csr", "dia", "hdia", "segdia", "segdia-off", "hybrid", "hybrid-valued", "bitflag"});
}

// spyglass/bitflag.h
const char* toString(BitFlagBackend backend) {
    return nameOf<BitFlagBackend::Vendor>(backend, {"cpu", "cuda", "vendor"});
}

const char* toString(BitFlagBatchedLuLayout layout) {
    return nameOf<BitFlagBatchedLuLayout::RegisterRows>(layout, {
        "auto", "block per matrix", "warp per matrix", "register rows"});
}

// spyglass/segdia.h, spyglass/segdia_spmv.h
const char* toString(SegmentedDiaRemainder policy) {
    return nameOf<SegmentedDiaRemainder::All>(policy, {"off", "auto", "all"});
}

const char* toString(DiaMergeRule rule) {
    return nameOf<DiaMergeRule::SmallestIntoNext>(rule, {
        "max > 2 x second smallest: merge the two smallest",
        "only the smallest is below max / 2: merge it into the second smallest"});
}

const char* toString(SpmvBackend backend) {
    return nameOf<SpmvBackend::Cusparse>(backend, {"cpu", "cuda", "cusparse"});
}

// spyglass/hybrid_spmv.h, spyglass/hybrid_regions.h
const char* toString(HybridSpmvBackend backend) {
    return nameOf<HybridSpmvBackend::Cuda>(backend, {"cpu", "cuda"});
}

const char* toString(ComponentVerdict verdict) {
    return nameOf<ComponentVerdict::Overlap>(verdict, {
        "kept", "too small", "no shape fits", "fill too low", "overlaps a denser region"});
}

// spyglass/batchedinverse_generators.h, spyglass/batchedsvd.h (the generators' batch kinds)
const char* toString(BatchKind kind) {
    return nameOf<BatchKind::IllConditioned>(kind, {"random", "lte", "illcond"});
}

const char* toString(SvdBatchKind kind) {
    return nameOf<SvdBatchKind::SonarSnapshots>(kind, {"random", "rankdef", "graded", "sonar"});
}

// spyglass/container.h: the encodings count from 1, the value stored in the file header.
const char* toString(ContainerEncoding encoding) {
    return nameOfFrom<ContainerEncoding::HybridBinary, ContainerEncoding::BitFlag>(encoding, {
        "hybrid", "segdia", "bitflag"});
}

} // namespace spyglass

// spyglass/benchmark.h
namespace spyglass::bench {

const char* toString(Target::Status status) {
    return nameOf<Target::Status::NotMeasured>(status, {"met", "not met", "not measured in this run"});
}

} // namespace spyglass::bench
