#include "partitioned_cli.h"

#include "command.h"

#include "core/appinfo.h"

#include <algorithm>
#include <stdexcept>

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
    // Not a usage error: the same words run on a machine with more GPUs.
    if (args.gpus > 0)
        if (const QString missing = app::gpusMissing(args.gpus); !missing.isEmpty()) throw std::runtime_error(missing.toStdString());
    return args.gpus > 1 ? args.gpus : std::max(1, args.partitions);
}

QString backendName(const Args& args) {
    if (args.cpu) return QStringLiteral("cpu");
    if (args.gpus > 0) return QStringLiteral("cuda");
    return app::cudaDevicePresent() ? QStringLiteral("cuda") : QStringLiteral("cpu");
}

PartitionRunOptions runOptions(const Args& args) {
    PartitionRunOptions options;
    options.backend = backendName(args) == QLatin1String("cuda") ? PartitionBackend::Cuda : PartitionBackend::Reference;
    if (args.gpus > 1)
        for (int d = 0; d < args.gpus; ++d) options.devices.push_back(d);
    return options;
}

app::PartitionRequest request(const Args& args, const QString& format, Index threshold, const hybridcli::DetectionArgs& detection) {
    app::PartitionRequest request;
    request.format = format == QLatin1String("csr")      ? PartitionFormat::Csr
                     : format == QLatin1String("segdia") ? PartitionFormat::SegmentedDia
                                                         : PartitionFormat::Hybrid;
    request.threshold = threshold;
    request.parts = partitionCount(args);
    request.exchange = args.exchange;
    request.detection = detection.options;
    return request;
}

} // namespace spyglass::cli::partitioned
