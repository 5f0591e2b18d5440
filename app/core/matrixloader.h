#pragma once
// Reads a matrix file (Matrix Market, or a Spyglass .spy export) off the GUI thread, then computes
// its statistics and value index there too, so the window stays responsive for files of any size.
//
// A .mat file with several matrix variables (and no SuiteSparse Problem.A) is not read: the loader
// lists them and asks (variableChoiceNeeded); loading "FILE.mat:NAME" then reads the chosen one.
//
// One load at a time: load() while another is running cancels the running one, which then ends
// silently (no signal at all), and starts the new one. Only the newest load reports.
#include "matrixdocument.h"

#include <QFuture>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>

namespace spyglass::app {

class MatrixLoader : public QObject {
    Q_OBJECT
public:
    explicit MatrixLoader(QObject* parent = nullptr);
    ~MatrixLoader() override;  // cancels and waits for the reading thread

    bool isLoading() const { return m_current != nullptr; }
    QString loadingPath() const;
    // Threads that parse a Matrix Market file; 0 (the default) = every hardware thread. Applies to
    // the next load.
    void setReaderThreads(unsigned threads) { m_readerThreads = threads; }

public slots:
    void load(const QString& path);
    // Stops the current load; loadCancelled() follows once the reading thread has noticed.
    void cancel();

signals:
    void loadStarted(const QString& path);
    void loadProgress(double fraction);  // 0..1 of the file read
    void loadFinished(const spyglass::app::MatrixDocument& document);
    void loadFailed(const QString& message);
    void loadCancelled();
    // Instead of loadFinished: the .mat file at path holds these matrix variables (names, and a line
    // each such as "sparse double, 479 x 479"); load(path + ":" + name) reads one.
    void variableChoiceNeeded(const QString& path, const QStringList& names, const QStringList& descriptions);

private:
    struct Job;
    void finishJob(const std::shared_ptr<Job>& job);

    std::shared_ptr<Job> m_current;
    unsigned m_readerThreads = 0;
    QList<QFuture<void>> m_running;  // kept so the destructor can wait for every thread
};

} // namespace spyglass::app
