// The command-line argument helpers every spyglass-cli command uses: options are taken by name in
// any position, mistakes become UsageError naming the option, positionals come last.
// spyglass-cli is an executable, not a library, so its helper source is compiled into this suite.
#include "cli/cliargs.cpp"

#include <QtTest>

using spyglass::cli::ArgParser;
using spyglass::cli::UsageError;

namespace {

// The message of the UsageError that work throws, or a null string when it throws none.
template <typename Work>
QString usageErrorOf(Work&& work) {
    try {
        work();
    } catch (const UsageError& error) {
        return error.message.isNull() ? QStringLiteral("") : error.message;
    }
    return QString();
}

} // namespace

class TestCliArgs : public QObject {
    Q_OBJECT
private slots:
    void optionsAreTakenAnywhereAndLeavePositionals() {
        ArgParser parser({"a.mtx", "--json", "--seed", "7", "b.mtx", "--type=f32", "-o", "y.txt"});
        QCOMPARE(parser.flag("--json"), true);
        QCOMPARE(parser.flag("--stats"), false);
        QCOMPARE(parser.integer("--seed", 1), 7LL);
        QCOMPARE(parser.choice("--type", {"f32", "f64"}, "f64"), QStringLiteral("f32"));
        QCOMPARE(parser.value("-o|--output", "default"), QStringLiteral("y.txt"));
        QCOMPARE(parser.value("--absent", "fallback"), QStringLiteral("fallback"));
        QCOMPARE(parser.value("--absent2"), std::nullopt);
        QCOMPARE(parser.positionals(2, 2, "IN OUT"), (QStringList{"a.mtx", "b.mtx"}));
    }

    void aliasesMatchEitherSpelling() {
        ArgParser parser({"--output=z.txt"});
        QCOMPARE(parser.value("-o|--output", "default"), QStringLiteral("z.txt"));
        QCOMPARE(parser.positionals(0, 0, "nothing"), QStringList());
    }

    void negativeNumbersAndDashAreValues() {
        ArgParser parser({"--shift", "-5", "--scale", "-1.5e-3", "-"});
        QCOMPARE(parser.integer("--shift", 0), -5LL);
        QCOMPARE(parser.number("--scale", 0.0), -1.5e-3);
        QCOMPARE(parser.positionals(1, 1, "FILE"), QStringList{"-"});
    }

    void doubleDashEndsOptions() {
        ArgParser parser({"--json", "--", "--weird-name.mtx"});
        QVERIFY(parser.flag("--json"));
        QCOMPARE(parser.positionals(1, 1, "FILE"), QStringList{"--weird-name.mtx"});
    }

    void mistakesAreUsageErrorsNamingTheOption_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");  // a part of the message
        QTest::newRow("missing value at end") << QStringList{"--seed"} << "--seed";
        QTest::newRow("missing value before option") << QStringList{"--seed", "--json"} << "--seed";
        QTest::newRow("not an integer") << QStringList{"--seed", "seven"} << "seven";
        QTest::newRow("fraction for integer") << QStringList{"--seed", "1.5"} << "--seed";
        QTest::newRow("integer below minimum") << QStringList{"--seed", "-1"} << "--seed";
        QTest::newRow("not a number") << QStringList{"--threshold", "abc"} << "--threshold";
        QTest::newRow("number above maximum") << QStringList{"--threshold", "2"} << "--threshold";
        QTest::newRow("not a choice") << QStringList{"--type", "f16"} << "f32|f64";
        QTest::newRow("option twice") << QStringList{"--seed", "1", "--seed=2"} << "more than once";
        QTest::newRow("flag with value") << QStringList{"--json=1"} << "--json";
        QTest::newRow("unknown option") << QStringList{"--frobnicate", "a"} << "--frobnicate";
        QTest::newRow("unknown short option") << QStringList{"-q", "a"} << "-q";
        QTest::newRow("too few positionals") << QStringList{} << "FILE";
        QTest::newRow("too many positionals") << QStringList{"a", "b"} << "'b'";
    }
    void mistakesAreUsageErrorsNamingTheOption() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const QString message = usageErrorOf([&] {
            ArgParser parser(args);
            parser.flag("--json");
            parser.integer("--seed", 1, 0);
            parser.number("--threshold", 0.5, 0.0, 1.0);
            parser.choice("--type", {"f32", "f64"}, "f64");
            parser.positionals(1, 1, "FILE");
        });
        QVERIFY2(!message.isNull(), "no UsageError");
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void wellFormedArgumentsThrowNothing() {
        const QString message = usageErrorOf([] {
            ArgParser parser({"--seed=0", "--threshold", "1", "x.mtx", "--type", "f64"});
            QCOMPARE(parser.integer("--seed", 1, 0), 0LL);
            QCOMPARE(parser.number("--threshold", 0.5, 0.0, 1.0), 1.0);
            parser.choice("--type", {"f32", "f64"}, "f32");
            parser.positionals(1, 1, "FILE");
        });
        QVERIFY2(message.isNull(), qPrintable(message));
    }

    void numberParsingRejectsGarbage() {
        QCOMPARE(spyglass::cli::parseInteger(" 42 ", "N"), 42LL);
        QVERIFY(!usageErrorOf([] { spyglass::cli::parseInteger("4x2", "N"); }).isNull());
        QVERIFY(!usageErrorOf([] { spyglass::cli::parseInteger("99", "N", 0, 10); }).isNull());
        QVERIFY(!usageErrorOf([] { spyglass::cli::parseNumber("inf", "T"); }).isNull());
        QVERIFY(!usageErrorOf([] { spyglass::cli::parseNumber("", "T"); }).isNull());
        QCOMPARE(spyglass::cli::parseNumber("2.5e1", "T"), 25.0);
    }

    // --gpu-memory-cap may stand before or after the command name; it is taken out of the list so the
    // command never sees it, but not from after "--" (a file may be named like an option there).
    void globalOptionIsTakenFromAnywhereBeforeDashDash() {
        using spyglass::cli::takeGlobalOption;
        QStringList args{"--gpu-memory-cap", "64M", "spmv", "a.mtx", "--", "--gpu-memory-cap"};
        QCOMPARE(takeGlobalOption(args, "--gpu-memory-cap"), std::optional<QString>("64M"));
        QCOMPARE(args, (QStringList{"spmv", "a.mtx", "--", "--gpu-memory-cap"}));
        args = QStringList{"invert", "--batch", "4", "--gpu-memory-cap=1K"};
        QCOMPARE(takeGlobalOption(args, "--gpu-memory-cap"), std::optional<QString>("1K"));
        QCOMPARE(args, (QStringList{"invert", "--batch", "4"}));
        QCOMPARE(takeGlobalOption(args, "--gpu-memory-cap"), std::optional<QString>());
        QCOMPARE(args, (QStringList{"invert", "--batch", "4"}));
    }

    void globalOptionMistakesAreUsageErrors() {
        using spyglass::cli::takeGlobalOption;
        QString message = usageErrorOf([] {
            QStringList args{"spmv", "a.mtx", "--gpu-memory-cap"};
            takeGlobalOption(args, "--gpu-memory-cap");
        });
        QVERIFY2(message.contains("--gpu-memory-cap needs a value"), qPrintable(message));
        message = usageErrorOf([] {
            QStringList args{"--gpu-memory-cap", "--json", "info"};
            takeGlobalOption(args, "--gpu-memory-cap");
        });
        QVERIFY2(message.contains("needs a value"), qPrintable(message));
        message = usageErrorOf([] {
            QStringList args{"--gpu-memory-cap=1M", "info", "--gpu-memory-cap", "2M"};
            takeGlobalOption(args, "--gpu-memory-cap");
        });
        QVERIFY2(message.contains("more than once"), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestCliArgs)
#include "tst_cliargs.moc"
