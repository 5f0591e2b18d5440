#pragma once
// Small argument helpers shared by the spyglass-cli commands. A command builds an ArgParser from its
// arguments, takes its options by name (each take removes them), and asks for the positionals last:
// anything that still looks like an option then is unknown and a UsageError (exit code 2).
//
//   ArgParser parser(args);
//   const bool json = parser.flag("--json");
//   const int seed = parser.integer("--seed", 1, 0);               // --seed 7 or --seed=7
//   const QString out = parser.value("-o|--output", "y.txt");       // aliases separated by '|'
//   const QString type = parser.choice("--type", {"f32", "f64"}, "f64");
//   const QStringList files = parser.positionals(1, 1, "FILE");     // exactly one FILE
//
// A value that is missing, not a number, out of range or not one of the choices throws UsageError
// naming the option. "--" ends the options; a lone "-" and negative numbers are positionals.
#include "command.h"

#include <QString>
#include <QStringList>

#include <limits>
#include <optional>
#include <vector>

namespace spyglass::cli {

class ArgParser {
public:
    explicit ArgParser(QStringList args);

    // True when the flag is present. A flag given a value (--json=1) is a usage error.
    bool flag(const QString& names);
    // The option's text value, or nullopt when the option is absent.
    std::optional<QString> value(const QString& names);
    QString value(const QString& names, const QString& fallback);
    // The value, which must be one of allowed.
    QString choice(const QString& names, const QStringList& allowed, const QString& fallback);
    long long integer(const QString& names, long long fallback, long long min = std::numeric_limits<long long>::min(),
                      long long max = std::numeric_limits<long long>::max());
    double number(const QString& names, double fallback, double min = -std::numeric_limits<double>::infinity(),
                  double max = std::numeric_limits<double>::infinity());
    // The remaining arguments, between min and max of them (max < 0: no limit). Call after all options.
    // what names them in the error ("FILE", "IN OUT").
    QStringList positionals(int min, int max, const QString& what);

private:
    // Removes every occurrence of the option; returns its value, or nullopt. needsValue false: a flag.
    std::optional<QString> take(const QString& names, bool needsValue);

    QStringList m_args;
    QStringList m_afterDashDash;  // arguments after "--": never options
};

// Removes a program-wide option (e.g. --gpu-memory-cap BYTES) from anywhere before "--", so that it
// may stand before or after the command name; returns its value, or nullopt when absent. A missing
// value or a second occurrence throws UsageError.
std::optional<QString> takeGlobalOption(QStringList& args, const QString& name);

// Number parsing for positionals and option values; throws UsageError naming what on bad text.
long long parseInteger(const QString& text, const QString& what, long long min = std::numeric_limits<long long>::min(),
                       long long max = std::numeric_limits<long long>::max());
double parseNumber(const QString& text, const QString& what);

// Commands that compute print the backend that runs their work, on stderr so stdout stays clean for
// JSON: the one chosen with --backend (cpu, cuda, or the vendor library: cusparse, cusolver, cublas),
// not what the machine offers. One line, "spyglass-cli spmv: backend: cpu (CPU reference)", or for a
// GPU backend "... backend: cuda (Spyglass CUDA kernels; CUDA: NVIDIA H100 ...)" with the device (or
// why there is none: the command then fails with that reason), as app::describeBackend words it.
// Commands without --backend pass "cpu".
void printActiveBackend(const char* commandName, const QString& chosenBackend);
// --gpus N for the batch commands: GPUs 0..N-1 (empty when not given); a usage error past what the
// machine has.
std::vector<int> takeGpus(ArgParser& parser);

} // namespace spyglass::cli
