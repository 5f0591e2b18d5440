#include "bitflagexportaction.h"

#include "maincontext.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>

namespace spyglass::widgets {

BitFlagExportAction::BitFlagExportAction(MainContext& context, QObject* parent) : QAction(parent), m_context(context) {
    setObjectName(QStringLiteral("exportBitFlagAction"));
    connect(this, &QAction::triggered, this, &BitFlagExportAction::triggeredByUser);
    connect(&m_context, &MainContext::documentChanged, this, &BitFlagExportAction::updateState);
    m_job.onFinished(this, [this](const QString& summary) {
        const QString& path = m_job.path();
        updateState();
        m_context.showStatusMessage(tr("Exported %1").arg(summary), 8000);
        emit exportFinished(path, summary);
    });
    connect(&m_job, &app::ExportJob::failed, this, [this](const QString& message) {
        updateState();
        const QString text = tr("Export to %1 failed: %2").arg(m_job.path(), message);
        m_context.showExportFailure(text);
        emit exportFailed(text);
    });
    connect(&m_job, &app::ExportJob::cancelled, this, [this] {
        updateState();
        m_context.showStatusMessage(tr("Bit-flag export cancelled; no file written."));
    });
    updateState();
}

void BitFlagExportAction::updateState() {
    if (m_job.isRunning()) {
        setText(tr("Cancel Bit-Flag Export"));
        setEnabled(true);
        return;
    }
    setText(tr("Export as &Bit-Flag Container…"));
    const app::MatrixDocument& document = m_context.document();
    const bool complex = !document.isEmpty() && document.matrix()->isComplex();
    setEnabled(!document.isEmpty() && !complex);
    setToolTip(complex ? tr("The bit-flag container holds real, integer or pattern values; this matrix is complex")
                       : tr("Write the open matrix in method A's bit-flag form (M, F, P) to a Spyglass container"));
}

void BitFlagExportAction::triggeredByUser() {
    if (m_job.isRunning()) {
        m_job.cancel();
        return;
    }
    const app::MatrixDocument& document = m_context.document();
    if (document.isEmpty()) return;
    const QString rowMajor = tr("Bit-flag container, row-major (*.spy)");
    const QString colMajor = tr("Bit-flag container, column-major (*.spy)");
    const QString withPrefix = tr("Bit-flag container, row-major with prefix counts (*.spy)");
    QString filter = rowMajor;
    const QString base = QFileInfo(document.path()).completeBaseName().section(QLatin1Char('.'), 0, 0);
    const QString path = QFileDialog::getSaveFileName(m_context.mainWindow(), tr("Export as bit-flag container"),
                                                      base + QStringLiteral("-bitflag.spy"),
                                                      QStringList{rowMajor, colMajor, withPrefix}.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty()) return;
    exportTo(path, filter == colMajor ? BitFlagOrder::ColumnMajor : BitFlagOrder::RowMajor, filter == withPrefix);
}

bool BitFlagExportAction::exportTo(const QString& path, BitFlagOrder order, bool prefixCounts) {
    const app::MatrixDocument& document = m_context.document();
    if (document.isEmpty() || m_job.isRunning()) return false;
    std::shared_ptr<const Matrix> matrix = document.matrix();  // immutable, shared with the worker
    const std::string source = document.path().toStdString();
    const std::string note = "Spyglass export of " + document.fileName().toStdString();
    const bool started = m_job.start(path, [matrix, source, note, path, order, prefixCounts](const std::atomic<bool>* cancel) {
        return app::exportBitFlag(*matrix, source, order, prefixCounts, path, note, cancel).describe(path);
    });
    if (started) {
        updateState();
        m_context.showStatusMessage(tr("Exporting bit-flag container to %1…").arg(path), 0);
    }
    return started;
}

} // namespace spyglass::widgets
