#pragma once
// The base of the suites that run spyglass-cli on files in a temporary folder: the built program
// (the suite skips when there is none) and that folder. A suite derives from CliSuite, keeps its own
// slots, and adds #include "moc_clisuite.cpp" beside its own .moc include.
#include "clitesting.h"

#include <QObject>
#include <QTemporaryDir>

namespace clitesting {

class CliSuite : public QObject {
    Q_OBJECT

protected:
    QString m_cli;       // spyglass-cli as built next to the tests
    QTemporaryDir m_dir; // the files a suite writes for the CLI and the ones it writes back

private slots:
    void initTestCase() {
        CLITESTING_REQUIRE_CLI(m_cli);
        QVERIFY(m_dir.isValid());
    }
};

} // namespace clitesting
