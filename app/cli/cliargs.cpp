// Argument helpers for the spyglass-cli commands (see cliargs.h).
#include "cliargs.h"

#include "core/appinfo.h"
#include "core/gpumemorycap.h"

#include <cmath>
#include <cstdio>

namespace spyglass::cli {

namespace {

bool looksLikeNumber(const QString& text) {
    bool ok = false;
    text.toDouble(&ok);
    return ok;
}

// "-x" and "--xyz" are options; "-", "-5" and "-1e3" are values.
bool looksLikeOption(const QString& text) {
    return text.size() > 1 && text.startsWith(QLatin1Char('-')) && !looksLikeNumber(text);
}

QString displayName(const QString& names) { return names.split(QLatin1Char('|')).last(); }

// Removes every occurrence of the option (any of its '|'-separated names) from args; returns its
// value, or nullopt. needsValue false: a flag. The parser and the program-wide options share it.
std::optional<QString> takeOption(QStringList& args, const QString& names, bool needsValue) {
    const QStringList aliases = names.split(QLatin1Char('|'));
    std::optional<QString> result;
    for (qsizetype i = 0; i < args.size();) {
        const QString arg = args[i];
        QString matched;
        for (const QString& alias : aliases)
            if (arg == alias || arg.startsWith(alias + QLatin1Char('='))) matched = alias;
        if (matched.isEmpty()) {
            ++i;
            continue;
        }
        if (result) throw UsageError{QStringLiteral("option %1 given more than once").arg(displayName(names))};
        const bool inlineValue = arg.size() > matched.size();
        if (!needsValue) {
            if (inlineValue) throw UsageError{QStringLiteral("option %1 takes no value").arg(matched)};
            result = QString();
            args.removeAt(i);
            continue;
        }
        if (inlineValue) {
            result = arg.mid(matched.size() + 1);
            args.removeAt(i);
            continue;
        }
        if (i + 1 >= args.size() || looksLikeOption(args[i + 1]))
            throw UsageError{QStringLiteral("option %1 needs a value").arg(matched)};
        result = args[i + 1];
        args.remove(i, 2);
    }
    return result;
}

} // namespace

ArgParser::ArgParser(QStringList args) {
    const qsizetype dashDash = args.indexOf(QStringLiteral("--"));
    if (dashDash >= 0) {
        m_afterDashDash = args.mid(dashDash + 1);
        args = args.mid(0, dashDash);
    }
    m_args = std::move(args);
}

std::optional<QString> ArgParser::take(const QString& names, bool needsValue) { return takeOption(m_args, names, needsValue); }

bool ArgParser::flag(const QString& names) { return take(names, false).has_value(); }

std::optional<QString> ArgParser::value(const QString& names) { return take(names, true); }

QString ArgParser::value(const QString& names, const QString& fallback) { return take(names, true).value_or(fallback); }

QString ArgParser::choice(const QString& names, const QStringList& allowed, const QString& fallback) {
    const std::optional<QString> text = take(names, true);
    if (!text) return fallback;
    if (!allowed.contains(*text))
        throw UsageError{QStringLiteral("option %1: '%2' is not one of %3")
                             .arg(displayName(names), *text, allowed.join(QLatin1Char('|')))};
    return *text;
}

long long ArgParser::integer(const QString& names, long long fallback, long long min, long long max) {
    const std::optional<QString> text = take(names, true);
    return text ? parseInteger(*text, QStringLiteral("option ") + displayName(names), min, max) : fallback;
}

double ArgParser::number(const QString& names, double fallback, double min, double max) {
    const std::optional<QString> text = take(names, true);
    if (!text) return fallback;
    const QString what = QStringLiteral("option ") + displayName(names);
    const double result = parseNumber(*text, what);
    if (result < min || result > max)
        throw UsageError{QStringLiteral("%1: %2 is outside [%3, %4]").arg(what, *text).arg(min).arg(max)};
    return result;
}

QStringList ArgParser::positionals(int min, int max, const QString& what) {
    for (const QString& arg : m_args)
        if (looksLikeOption(arg)) throw UsageError{QStringLiteral("unknown option %1").arg(arg)};
    const QStringList result = m_args + m_afterDashDash;
    if (result.size() < min) throw UsageError{QStringLiteral("missing argument: expected %1").arg(what)};
    if (max >= 0 && result.size() > max)
        throw UsageError{QStringLiteral("unexpected argument '%1': expected %2").arg(result[max], what)};
    return result;
}

std::optional<QString> takeGlobalOption(QStringList& args, const QString& name) {
    const qsizetype dashDash = args.indexOf(QStringLiteral("--"));
    QStringList options = dashDash >= 0 ? args.mid(0, dashDash) : args;
    const std::optional<QString> result = takeOption(options, name, true);
    args = dashDash >= 0 ? options + args.mid(dashDash) : options;
    return result;
}

long long parseInteger(const QString& text, const QString& what, long long min, long long max) {
    bool ok = false;
    const long long result = text.trimmed().toLongLong(&ok);
    if (!ok) throw UsageError{QStringLiteral("%1: '%2' is not an integer").arg(what, text)};
    if (result < min || result > max)
        throw UsageError{QStringLiteral("%1: %2 is outside [%3, %4]").arg(what, text).arg(min).arg(max)};
    return result;
}

double parseNumber(const QString& text, const QString& what) {
    bool ok = false;
    const double result = text.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(result)) throw UsageError{QStringLiteral("%1: '%2' is not a number").arg(what, text)};
    return result;
}

void printActiveBackend(const char* commandName, const QString& chosenBackend) {
    std::fprintf(stderr, "spyglass-cli %s: backend: %s\n", commandName, qPrintable(app::describeBackend(chosenBackend)));
    // A cap left in the environment would otherwise make a later "GPU out of memory" a puzzle.
    if (const std::uint64_t cap = app::gpuMemoryCap())
        std::fprintf(stderr, "spyglass-cli %s: GPU memory cap: %s\n", commandName,
                     qPrintable(spyglass::app::describeGpuMemoryCap(cap)));
}

// --gpus N: GPUs 0..N-1, checked against the machine (a usage error past what it has).
std::vector<int> takeGpus(ArgParser& parser) {
    const int gpus = static_cast<int>(parser.integer("--gpus", 0, 1, 64));
    std::vector<int> devices;
    if (gpus == 0) return devices;
    const int available = app::gpuCount();
    if (gpus > available)
        throw UsageError{QStringLiteral("--gpus %1: this machine has %2 GPU(s)").arg(gpus).arg(available)};
    for (int d = 0; d < gpus; ++d) devices.push_back(d);
    return devices;
}

} // namespace spyglass::cli
