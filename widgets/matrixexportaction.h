#pragma once
// File > Export Matrix As…: the open matrix written for the tools users have: Matrix Market (.mtx,
// .mtx.gz), MATLAB (.mat), SciPy (.npz) or NumPy (.npy), chosen by the file name (app::exportMatrixFile,
// the same checked writer as `spyglass-cli convert`). Writing a large matrix takes seconds, so it runs
// in an app::ExportJob; the file appears whole and read back, or not at all. Errors go to a message
// box and the status bar.
#include "core/exportjob.h"

#include <QAction>
#include <QString>

namespace spyglass::widgets {

class MainContext;

class MatrixExportAction : public QAction {
    Q_OBJECT
public:
    explicit MatrixExportAction(MainContext& context, QObject* parent = nullptr);

    bool isRunning() const { return m_job.isRunning(); }  // the job's destructor waits for it

public slots:
    // Starts writing the open matrix to path; false when there is none or a write is running.
    bool exportTo(const QString& path);

signals:
    void exportFinished(const QString& path);
    void exportFailed(const QString& message);

private:
    MainContext& m_context;
    app::ExportJob m_job;

    void triggeredByUser();
    void updateState();
};

} // namespace spyglass::widgets
