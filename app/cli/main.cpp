// spyglass-cli: dispatches to the registered subcommands (see command.h).
#include "cliargs.h"
#include "command.h"
#include "inputmatrix.h"

#include "core/appinfo.h"
#include "core/errortext.h"
#include "core/gpumemorycap.h"

#include <QCoreApplication>
#include <QTextStream>

#include <cstdio>
#include <exception>

namespace spyglass::cli {

namespace {
std::vector<Command>& registry() {
    static std::vector<Command> list;
    return list;
}

void printUsage(FILE* stream) {
    std::fprintf(stream, "usage: spyglass-cli COMMAND [ARGS]\n\ncommands:\n");
    for (const Command& command : commands()) std::fprintf(stream, "  %-60s %s\n", command.synopsis, command.summary);
    std::fprintf(stream, "\nspyglass-cli --version | --help | backends\n");
    std::fprintf(stream, "\nany command: --gpu-memory-cap BYTES (or %s=BYTES) caps Spyglass's device memory, e.g. 64M,\n"
                         "to simulate a smaller GPU; 0 = no cap\n",
                 spyglass::app::kGpuMemoryCapVariable);
    std::fprintf(stream, "any command: --threads N reads the input matrix on N threads (default: every core); inputs may\n"
                         "be Matrix Market (.mtx, .mtx.gz), a Spyglass export (.spy), SciPy .npz / NumPy .npy,\n"
                         "Harwell-Boeing, or MATLAB .mat (FILE.mat:VAR names a variable; Problem.A opens by itself)\n");
}
} // namespace

bool registerCommand(const Command& command) {
    registry().push_back(command);
    return true;
}
const std::vector<Command>& commands() { return registry(); }

} // namespace spyglass::cli

int main(int argc, char** argv) {
    using namespace spyglass::cli;
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("spyglass-cli"));
    QCoreApplication::setApplicationVersion(spyglass::app::applicationVersion());
    QStringList args = QCoreApplication::arguments().mid(1);
    try {
        const QString problem = spyglass::app::applyGpuMemoryCap(takeGlobalOption(args, QStringLiteral("--gpu-memory-cap")));
        if (!problem.isEmpty()) {
            std::fprintf(stderr, "spyglass-cli: %s\n", qPrintable(problem));
            return ExitUsage;
        }
        if (const auto threads = takeGlobalOption(args, QStringLiteral("--threads")))
            setReaderThreads(static_cast<unsigned>(parseInteger(*threads, QStringLiteral("--threads"), 1, 1024)));
    } catch (const UsageError& error) {
        std::fprintf(stderr, "spyglass-cli: %s\n", qPrintable(error.message));
        return ExitUsage;
    }
    if (args.isEmpty()) {
        printUsage(stderr);
        return ExitUsage;
    }
    const QString name = args.takeFirst();
    if (name == QLatin1String("--help") || name == QLatin1String("-h") || name == QLatin1String("help")) {
        printUsage(stdout);
        return ExitOk;
    }
    if (name == QLatin1String("--version")) {
        std::printf("spyglass-cli %s\n", qPrintable(spyglass::app::applicationVersion()));
        return ExitOk;
    }
    if (name == QLatin1String("backends")) {
        for (const spyglass::app::BackendDescription& backend : spyglass::app::backendDescriptions())
            std::printf("%-7s %-9s %s\n", qPrintable(backend.name), backend.available ? "available" : "absent",
                        qPrintable(backend.description));
        return ExitOk;
    }
    for (const Command& command : commands()) {
        if (name != QLatin1String(command.name)) continue;
        // "spyglass-cli COMMAND --help" (or -h) anywhere before "--": the command's usage, nothing run.
        const int dashDash = args.indexOf(QStringLiteral("--"));
        const QStringList options = dashDash < 0 ? args : args.mid(0, dashDash);
        if (options.contains(QStringLiteral("--help")) || options.contains(QStringLiteral("-h"))) {
            std::printf("usage: spyglass-cli %s\n\n%s\n", command.synopsis, command.summary);
            return ExitOk;
        }
        try {
            return command.run(args);
        } catch (const UsageError& error) {
            std::fprintf(stderr, "spyglass-cli %s: %s\nusage: spyglass-cli %s\n", command.name,
                         qPrintable(error.message), command.synopsis);
            return ExitUsage;
        } catch (const std::exception& error) {
            if (spyglass::app::isCancellation(error)) {
                std::fprintf(stderr, "spyglass-cli %s: cancelled\n", command.name);
                return ExitFailure;
            }
            std::fprintf(stderr, "spyglass-cli %s: error: %s\n", command.name, qPrintable(spyglass::app::errorText(error)));
            return ExitFailure;
        }
    }
    std::fprintf(stderr, "spyglass-cli: unknown command '%s'\n", qPrintable(name));
    printUsage(stderr);
    return ExitUsage;
}
