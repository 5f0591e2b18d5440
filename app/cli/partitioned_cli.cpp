#include "partitioned_cli.h"

#include "command.h"

#include "spyglass/backend.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/segdia.h"

#include <QFile>

namespace spyglass::cli::partitioned {

Args takeArgs(ArgParser& parser) {
    Args args;
    args.gpus = static_cast<int>(parser.integer(QStringLiteral("--gpus"), 0, 1, 64));
    args.partitions = static_cast<int>(parser.integer(QStringLiteral("--partitions"), 0, 1, 4096));
    const QString exchange = parser.choice(QStringLiteral("--exchange"), {"auto", "all-gather", "send-recv"}, QStringLiteral("auto"));
    args.exchange = exchange == QLatin1String("all-gather")  ? HaloExchange::AllGather
                    : exchange == QLatin1String("send-recv") ? HaloExchange::SendRecv
                                                             : HaloExchange::Auto;
    args.cpu = parser.flag(QStringLiteral("--cpu"));
    if (args.cpu && args.gpus > 0) throw UsageError{QStringLiteral("--cpu and --gpus exclude each other")};
    return args;
}

int partitionCount(const Args& args) {
    if (args.gpus > 1 && args.partitions > 0 && args.partitions != args.gpus)
        throw UsageError{QStringLiteral("--gpus %1 takes one partition per GPU (leave --partitions out, or give %1)").arg(args.gpus)};
    if (args.gpus > 0) {
        const int available = cudaDeviceCount();
        if (args.gpus > available)
            throw InputError("--gpus " + std::to_string(args.gpus) + ": this machine has " + std::to_string(available) + " GPU" +
                             (available == 1 ? "" : "s") + (available == 0 ? " (" + cudaDeviceInfo().reason + ")" : std::string()));
    }
    return args.gpus > 1 ? args.gpus : std::max(1, args.partitions);
}

QString backendName(const Args& args) {
    if (args.cpu) return QStringLiteral("cpu");
    if (args.gpus > 0) return QStringLiteral("cuda");
    return cudaDeviceInfo().present ? QStringLiteral("cuda") : QStringLiteral("cpu");
}

PartitionRunOptions runOptions(const Args& args) {
    PartitionRunOptions options;
    options.backend = backendName(args) == QLatin1String("cuda") ? PartitionBackend::Cuda : PartitionBackend::Reference;
    if (args.gpus > 1)
        for (int d = 0; d < args.gpus; ++d) options.devices.push_back(d);
    return options;
}

template <typename T>
PartitionedMatrix<T> build(const QString& file, const Matrix& matrix, const QString& format, Index threshold, int parts,
                           HaloExchange exchange, const hybridcli::DetectionArgs& detection) {
    if (format == QLatin1String("csr")) return partitionMatrix(toCsr<T>(matrix), parts, exchange);
    if (format == QLatin1String("segdia"))
        return partitionMatrix(buildSegmentedDia(toCoo<T>(expandSymmetry(matrix)), {threshold, true, SegmentedDiaRemainder::Auto}),
                               parts, exchange);
    if (!matrix.isBinary())
        throw InputError(QFile::encodeName(file).toStdString() +
                         ": the partitioned hybrid format takes binary matrices (pattern, or every value 1); use csr or segdia");
    const hybridcli::HybridRun run = hybridcli::detectAndEncode(file, detection.options);
    return partitionMatrix<T>(run.hybrid(), parts, exchange);
}

template PartitionedMatrix<float> build<float>(const QString&, const Matrix&, const QString&, Index, int, HaloExchange,
                                               const hybridcli::DetectionArgs&);
template PartitionedMatrix<double> build<double>(const QString&, const Matrix&, const QString&, Index, int, HaloExchange,
                                                 const hybridcli::DetectionArgs&);

} // namespace spyglass::cli::partitioned
