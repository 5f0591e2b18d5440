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

// toString of an enumeration from its table of names (Last: its last enumerator).
#define SPYGLASS_ENUM_NAMES(Enum, Last, ...) \
    const char* toString(Enum value) { return nameOf<Enum::Last>(value, {__VA_ARGS__}); }

namespace spyglass {

const char* toString(Layout layout) { return layout == Layout::Array ? "array" : "coordinate"; }

// spyglass/matrix.h
SPYGLASS_ENUM_NAMES(Field, Pattern, "real", "double", "integer", "complex", "pattern")

SPYGLASS_ENUM_NAMES(Symmetry, Hermitian, "general", "symmetric", "skew-symmetric", "hermitian")

// spyglass/backend.h
SPYGLASS_ENUM_NAMES(BackendKind, Vendor, "cpu", "cuda", "vendor")

// spyglass/batchedsvd.h
SPYGLASS_ENUM_NAMES(SvdBackend, CusolverGesvda, "cpu", "cuda", "cusolver", "cusolver-gesvda")

SPYGLASS_ENUM_NAMES(SvdStatus, NonFiniteInput, "converged", "not converged", "NaN/Inf input")

SPYGLASS_ENUM_NAMES(SvdVariant, RealEmbedding,
                    "auto", "block-per-matrix", "register-groups", "register-resident", "block-per-pair",
                    "real-embedding")

// spyglass/batchedinverse.h
SPYGLASS_ENUM_NAMES(InverseBackend, Cublas, "cpu", "cuda", "cublas")

SPYGLASS_ENUM_NAMES(InverseKernel, CublasMatinv,
                    "auto", "seed-shared-memory", "thread-per-matrix", "thread-per-matrix-pipelined",
                    "thread-per-matrix-staged", "thread-per-matrix-tma", "lane-group-rows", "lane-entries", "cublas-getrf-getri", "cublas-matinv")

// spyglass/multigpu.h
SPYGLASS_ENUM_NAMES(PartitionFormat, Hybrid, "csr", "segdia", "hybrid")

SPYGLASS_ENUM_NAMES(HaloExchange, SendRecv, "auto", "all-gather", "send/recv")

const char* toString(PartitionBackend backend) {
    return backend == PartitionBackend::Cuda ? "cuda" : "cpu";
}

// spyglass/hybrid_regions.h
SPYGLASS_ENUM_NAMES(RegionShape, Band, "rectangle", "triangle", "band")

SPYGLASS_ENUM_NAMES(TriangleCorner, LowerRight, "lower-left", "upper-right", "upper-left", "lower-right")

// spyglass/formatcomparison.h
SPYGLASS_ENUM_NAMES(SpmvFormat, BitFlag,
                    "CSR", "plain DIA", "HDIA", "segmented DIA", "segmented DIA (remainder off)", "hybrid binary",
                    "hybrid valued", "bit-flag")

const char* formatKey(SpmvFormat format) {
    return nameOf<SpmvFormat::BitFlag>(format, {
        "csr", "dia", "hdia", "segdia", "segdia-off", "hybrid", "hybrid-valued", "bitflag"});
}

// spyglass/bitflag.h
SPYGLASS_ENUM_NAMES(BitFlagBackend, Vendor, "cpu", "cuda", "vendor")

SPYGLASS_ENUM_NAMES(BitFlagBatchedLuLayout, RegisterRows,
                    "auto", "block per matrix", "warp per matrix", "register rows")

SPYGLASS_ENUM_NAMES(BitFlagLuLeaf, Auto, "one-block leaf", "cluster leaf", "automatic leaf")

// spyglass/segdia.h, spyglass/segdia_spmv.h
SPYGLASS_ENUM_NAMES(SegmentedDiaRemainder, All, "off", "auto", "all")

SPYGLASS_ENUM_NAMES(DiaMergeRule, SmallestIntoNext,
                    "max > 2 x second smallest: merge the two smallest",
                    "only the smallest is below max / 2: merge it into the second smallest")

SPYGLASS_ENUM_NAMES(SpmvBackend, Cusparse, "cpu", "cuda", "cusparse")
SPYGLASS_ENUM_NAMES(SegmentedDiaRemainderKernel, SubWarps, "automatic", "row-blocks", "owners", "sub-warps")

// spyglass/hybrid_spmv.h, spyglass/hybrid_regions.h
SPYGLASS_ENUM_NAMES(HybridSpmvBackend, Cuda, "cpu", "cuda")

SPYGLASS_ENUM_NAMES(ComponentVerdict, Overlap,
                    "kept", "too small", "no shape fits", "fill too low", "overlaps a denser region")

SPYGLASS_ENUM_NAMES(ComponentLabelling, Sauf, "spaghetti", "bbdt", "sauf")

SPYGLASS_ENUM_NAMES(ThumbnailBinning, MergedRanges, "line bands", "merged ranges")

// spyglass/batchedinverse_generators.h, spyglass/batchedsvd.h (the generators' batch kinds)
SPYGLASS_ENUM_NAMES(BatchKind, IllConditioned, "random", "lte", "illcond")

SPYGLASS_ENUM_NAMES(SvdBatchKind, SonarSnapshots, "random", "rankdef", "graded", "sonar")

// spyglass/container.h: the encodings count from 1, the value stored in the file header.
const char* toString(ContainerEncoding encoding) {
    return nameOfFrom<ContainerEncoding::HybridBinary, ContainerEncoding::BitFlag>(encoding, {
        "hybrid", "segdia", "bitflag"});
}

} // namespace spyglass

// spyglass/benchmark.h
namespace spyglass::bench {

SPYGLASS_ENUM_NAMES(Target::Status, NotMeasured, "met", "not met", "not measured in this run")

} // namespace spyglass::bench

#undef SPYGLASS_ENUM_NAMES
