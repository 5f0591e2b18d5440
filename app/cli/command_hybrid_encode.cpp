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
    const Count nnz = run.pattern().nnz();
    int byShape[3] = {0, 0, 0};
    if (run.valued())
        for (const auto& block : run.valuedHybrid().blocks) ++byShape[static_cast<int>(block.region.shape)];
    else
        for (const HybridBlock& block : run.hybrid().blocks) ++byShape[static_cast<int>(block.region.shape)];
    std::printf("%s: %d x %d, %lld nonzeros (%s)\n", qPrintable(file), run.pattern().rows, run.pattern().cols, static_cast<long long>(nnz),
                run.valued() ? "valued: regions store their values" : "binary: regions store their zeros");
    std::printf("thumbnail %d x %d (%d cells/pixel), %d components, %zu regions detected\n", run.detected().thumbnailWidth,
                run.detected().thumbnailHeight, run.detected().cellsPerPixel, run.detected().components, static_cast<std::size_t>(run.result.regionsFound));
    std::printf("regions encoded: %zu (rectangle %d, triangle %d, band %d); %s, residual %lld nonzeros\n", run.regionCount(),
                byShape[int(RegionShape::Rectangle)], byShape[int(RegionShape::Triangle)], byShape[int(RegionShape::Band)],
                run.zerosText().c_str(), static_cast<long long>(run.residualNnz()));
    const std::size_t csr = run.csrBytes(), coo = hybridcli::patternCooBytes(nnz) + (run.valued() ? 8 * std::size_t(nnz) : 0);
    const std::size_t encoded = run.encodedBytes();
    std::printf("bytes: CSR %zu, COO %zu, hybrid %zu (%.2fx smaller than CSR)\n", csr, coo, encoded,
                encoded > 0 ? double(csr) / double(encoded) : 0.0);
    if (run.csrFallback()) std::printf("CSR fallback: %s\n", run.fallbackReason().c_str());
    std::printf("wrote %s\n", qPrintable(*out));
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(encode_binary, "encode-binary",
                     "encode-binary FILE -o OUT [--thumb PIXELS | --cells-per-pixel N] [--fill 0.5] [--pixel-threshold T] "
                     "[--regions regions.json] [--residual-mtx R.mtx]",
                     "Hybrid encoding (binary: regions by their zeros; any real matrix: regions by their values) into the container; regions by shape, bytes",
                     runEncodeBinary);

} // namespace spyglass::cli
