#include "matrixloader.h"

#include "errortext.h"
#include "matrixread.h"

#include "spyglass/error.h"
#include "spyglass/matfile.h"
#include "spyglass/matrixfile.h"

#include <QFile>
#include <QFileInfo>
#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>

namespace spyglass::app {

struct MatrixLoader::Job {
    QString path;
    unsigned readerThreads = 0;
    std::atomic<bool> cancel{false};
    std::atomic<int> lastPercent{-1};
    // Written by the worker before it posts its completion; read by the GUI thread after.
    std::optional<MatrixDocument> document;
    QString error;
    bool cancelled = false;
    // A .mat file's matrix variables when the user must choose one (names, descriptions).
    QStringList variableNames, variableDescriptions;
};

namespace {

// The matrix variables to choose from when `path` is a .mat file whose matrix is not obvious (several
// variables, none of them the SuiteSparse Problem.A); empty otherwise.
std::vector<MatVariable> variablesToChoose(const std::string& path) {
    if (matrixFileKind(path) != MatrixFileKind::Mat || splitMatFilePath(path)) return {};
    std::vector<MatVariable> list = listMatVariables(path);
    const bool problem = std::any_of(list.begin(), list.end(), [](const MatVariable& v) { return v.name == "Problem.A"; });
    if (list.size() < 2 || problem) return {};
    return list;
}

QString describe(const MatVariable& v) {
    QStringList words{v.sparse ? QStringLiteral("sparse") : QStringLiteral("dense")};
    if (v.complex) words << QStringLiteral("complex");
    words << QString::fromStdString(v.matlabClass);
    return QStringLiteral("%1, %2 x %3").arg(words.join(QLatin1Char(' '))).arg(v.rows).arg(v.cols);
}

} // namespace

MatrixLoader::MatrixLoader(QObject* parent) : QObject(parent) {
    qRegisterMetaType<spyglass::app::MatrixDocument>();
}

MatrixLoader::~MatrixLoader() {
    if (m_current) m_current->cancel = true;
    for (QFuture<void>& future : m_running) future.waitForFinished();
}

QString MatrixLoader::loadingPath() const { return m_current ? m_current->path : QString(); }

void MatrixLoader::cancel() {
    if (m_current) m_current->cancel = true;
}

void MatrixLoader::load(const QString& path) {
    if (m_current) m_current->cancel = true;  // superseded: it ends without a signal
    auto job = std::make_shared<Job>();
    job->path = path;
    job->readerThreads = m_readerThreads;
    m_current = job;
    emit loadStarted(path);

    // The worker only touches the job; it reaches this object through queued calls, and the
    // destructor waits for it, so `this` outlives every posted call.
    m_running.erase(std::remove_if(m_running.begin(), m_running.end(),
                                   [](const QFuture<void>& f) { return f.isFinished(); }),
                    m_running.end());
    m_running.append(QtConcurrent::run([this, job] {
        try {
            MatrixReadOptions options;
            options.cancel = &job->cancel;
            options.threads = job->readerThreads;
            options.progress = [this, job](double fraction) {
                const int percent = static_cast<int>(fraction * 100.0);
                if (job->lastPercent.exchange(percent) == percent) return;  // throttle to 1 %
                QMetaObject::invokeMethod(this, [this, job, fraction] {
                    if (job == m_current) emit loadProgress(fraction);
                }, Qt::QueuedConnection);
            };
            const std::string path = QFile::encodeName(job->path).toStdString();
            if (const std::vector<MatVariable> choices = variablesToChoose(path); !choices.empty()) {
                for (const MatVariable& v : choices) {
                    job->variableNames.append(QString::fromStdString(v.name));
                    job->variableDescriptions.append(describe(v));
                }
                QMetaObject::invokeMethod(this, [this, job] { finishJob(job); }, Qt::QueuedConnection);
                return;
            }
            // One entry per position, as every format and the CLI's info see it; the statistics say
            // what was removed.
            DistinctEntriesReport distinct;
            auto matrix = std::make_shared<const Matrix>(readDistinctMatrix(job->path, &distinct, options));
            if (job->cancel) throw CancelledError();
            const MatrixStats stats = matrixStatistics(*matrix, distinct, job->path);
            if (job->cancel) throw CancelledError();
            // Past 2^32 entries there is no hover index (values are then not shown on hover).
            std::shared_ptr<const MatrixEntryIndex> entries;
            if (matrix->stored() <= Count(std::numeric_limits<std::uint32_t>::max()))
                entries = std::make_shared<const MatrixEntryIndex>(matrix, &job->cancel);
            job->document = MatrixDocument(QFileInfo(job->path).absoluteFilePath(), matrix, stats, entries);
        } catch (const CancelledError&) {
            job->cancelled = true;
        } catch (const std::bad_alloc&) {
            job->error = QStringLiteral("%1: not enough memory to load the matrix").arg(job->path);
        } catch (const std::exception& e) {
            job->error = errorText(e);
        }
        QMetaObject::invokeMethod(this, [this, job] { finishJob(job); }, Qt::QueuedConnection);
    }));
}

void MatrixLoader::finishJob(const std::shared_ptr<Job>& job) {
    if (job != m_current) return;  // superseded by a newer load
    m_current.reset();
    if (job->cancelled)
        emit loadCancelled();
    else if (!job->variableNames.isEmpty())
        emit variableChoiceNeeded(job->path, job->variableNames, job->variableDescriptions);
    else if (job->document)
        emit loadFinished(*job->document);
    else
        emit loadFailed(job->error.isEmpty() ? QStringLiteral("%1: unknown error").arg(job->path) : job->error);
}

} // namespace spyglass::app
