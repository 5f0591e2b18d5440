// spyglass-cli encode-binary: method D end to end on one file: detect the dense regions, encode,
// write the hybrid container, and print the regions by shape with the bytes of CSR, COO and the hybrid.
#include "cliargs.h"
#include "command.h"
#include "hybrid_cli.h"

#include <cstdio>

namespace spyglass::cli {

namespace {

int runEncodeBinary(const QStringList& args) {
    ArgParser parser(args);
    const std::optional<QString> out = parser.value("-o|--output");
    const DetectionOptions options = hybridcli::takeDetectionOptions(parser).options;
    const std::optional<QString> regionsJson = parser.value("--regions");
    const std::optional<QString> residualMtx = parser.value("--residual-mtx");
    const QString file = parser.positionals(1, 1, "FILE").first();
    if (!out) throw UsageError{QStringLiteral("-o OUT is required")};
    printActiveBackend("encode-binary", QStringLiteral("cpu"));  // detection and encoding run on the host

    const hybridcli::HybridRun run = hybridcli::detectAndEncode(file, options);
    hybridcli::writeHybridOutputs(run, file, *out, regionsJson, residualMtx);
    const HybridBinaryMatrix& hybrid = run.hybrid;
    const Count nnz = run.pattern.nnz();
    int byShape[3] = {0, 0, 0};
    for (const HybridBlock& block : hybrid.blocks) ++byShape[static_cast<int>(block.region.shape)];
    std::printf("%s: %d x %d, %lld nonzeros\n", qPrintable(file), run.pattern.rows, run.pattern.cols, static_cast<long long>(nnz));
    std::printf("thumbnail %d x %d (%d cells/pixel), %d components, %zu regions detected\n", run.detected.thumbnailWidth,
                run.detected.thumbnailHeight, run.detected.cellsPerPixel, run.detected.components, run.detected.regions.size());
    std::printf("regions encoded: %zu (rectangle %d, triangle %d, band %d); %lld zeros stored, residual %lld nonzeros\n",
                hybrid.blocks.size(), byShape[int(RegionShape::Rectangle)], byShape[int(RegionShape::Triangle)],
                byShape[int(RegionShape::Band)], static_cast<long long>(hybrid.zeros()),
                static_cast<long long>(hybrid.residual.nnz()));
    const std::size_t csr = patternCsrBytes(run.pattern.rows, nnz), coo = hybridcli::patternCooBytes(nnz);
    const std::size_t encoded = hybrid.encodedBytes();
    std::printf("bytes: CSR %zu, COO %zu, hybrid %zu (%.2fx smaller than CSR)\n", csr, coo, encoded,
                encoded > 0 ? double(csr) / double(encoded) : 0.0);
    if (hybrid.csrFallback) std::printf("CSR fallback: %s\n", hybrid.fallbackReason.c_str());
    std::printf("wrote %s\n", qPrintable(*out));
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(encode_binary, "encode-binary",
                     "encode-binary FILE -o OUT [--thumb PIXELS | --cells-per-pixel N] [--fill 0.5] [--pixel-threshold T] "
                     "[--regions regions.json] [--residual-mtx R.mtx]",
                     "Hybrid encoding of a binary matrix into the container; regions by shape, bytes of CSR, COO, hybrid",
                     runEncodeBinary);

} // namespace spyglass::cli
