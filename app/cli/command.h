#pragma once
// spyglass-cli subcommands. Each lives in its own command_<name>.cpp and registers itself with
// SPYGLASS_CLI_COMMAND; main.cpp only dispatches. Exit codes: 0 ok, 1 failure (message on stderr),
// 2 usage error.
#include <QStringList>

#include <functional>

namespace spyglass::cli {

enum ExitCode { ExitOk = 0, ExitFailure = 1, ExitUsage = 2 };

struct Command {
    const char* name;
    const char* synopsis;  // one usage line, e.g. "info FILE [--json]"
    const char* summary;   // one sentence
    std::function<int(const QStringList& args)> run;  // args exclude the program and command names
};

bool registerCommand(const Command& command);
const std::vector<Command>& commands();

// Thrown by commands for a usage error; main prints it with the command's synopsis and exits 2.
struct UsageError {
    QString message;
};

} // namespace spyglass::cli

#define SPYGLASS_CLI_COMMAND(id, ...) \
    static const bool spyglassCliRegistered_##id = ::spyglass::cli::registerCommand(::spyglass::cli::Command{__VA_ARGS__})
