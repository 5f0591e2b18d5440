#include "matrixexportaction.h"

#include "core/matrixexport.h"
#include "maincontext.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>

#include <algorithm>
#include <memory>

namespace spyglass::widgets {

MatrixExportAction::MatrixExportAction(MainContext& context, QObject* parent) : QAction(parent), m_context(context) {
    setObjectName(QStringLiteral("exportMatrixAction"));
    setText(tr("Export Matrix &As…"));
    setToolTip(tr("Write the open matrix as Matrix Market, MATLAB .mat, SciPy .npz or NumPy .npy"));
    connect(this, &QAction::triggered, this, &MatrixExportAction::triggeredByUser);
    connect(&m_context, &MainContext::documentChanged, this, &MatrixExportAction::updateState);
    m_job.onFinished(this, [this](const QString&) {
        updateState();
        m_context.showStatusMessage(tr("Wrote %1").arg(m_job.path()), 8000);
        emit exportFinished(m_job.path());
    });
    connect(&m_job, &app::ExportJob::failed, this, [this](const QString& message) {
        updateState();
        const QString text = tr("Export to %1 failed: %2").arg(m_job.path(), message);
        m_context.showExportFailure(text);
        emit exportFailed(text);
    });
    connect(&m_job, &app::ExportJob::cancelled, this, &MatrixExportAction::updateState);
    updateState();
}

void MatrixExportAction::updateState() { setEnabled(!m_context.document().isEmpty() && !m_job.isRunning()); }

void MatrixExportAction::triggeredByUser() {
    const app::MatrixDocument& document = m_context.document();
    if (document.isEmpty() || m_job.isRunning()) return;
    const QStringList filters{tr("Matrix Market (*.mtx)"), tr("Matrix Market, gzip (*.mtx.gz)"), tr("MATLAB (*.mat)"),
                              tr("SciPy sparse (*.npz)"), tr("NumPy dense (*.npy)")};
    const QStringList suffixes{QStringLiteral(".mtx"), QStringLiteral(".mtx.gz"), QStringLiteral(".mat"), QStringLiteral(".npz"),
                               QStringLiteral(".npy")};
    QString filter = filters.front();
    const QString base = QFileInfo(document.path()).completeBaseName().section(QLatin1Char('.'), 0, 0);
    QString path = QFileDialog::getSaveFileName(m_context.mainWindow(), tr("Export matrix as"), base + suffixes.front(),
                                                filters.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty()) return;
    // The format follows the name; a name without one of ours gets the chosen filter's.
    const bool named = std::any_of(suffixes.begin(), suffixes.end(),
                                   [&path](const QString& s) { return path.endsWith(s, Qt::CaseInsensitive); });
    if (!named) path += suffixes.value(filters.indexOf(filter), suffixes.front());
    exportTo(path);
}

bool MatrixExportAction::exportTo(const QString& path) {
    const app::MatrixDocument& document = m_context.document();
    if (document.isEmpty() || m_job.isRunning()) return false;
    std::shared_ptr<const Matrix> matrix = document.matrix();  // immutable, shared with the worker
    const bool started = m_job.start(path, [matrix, path](const std::atomic<bool>* cancel) {
        app::exportMatrixFile(*matrix, path, {}, "A", cancel);
        return path;
    });
    if (!started) return false;
    updateState();
    m_context.showStatusMessage(tr("Writing %1…").arg(path), 0);
    return true;
}

} // namespace spyglass::widgets
