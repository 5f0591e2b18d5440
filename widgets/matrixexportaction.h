#pragma once
// File > Export Matrix As…: the open matrix written for the tools users have: Matrix Market (.mtx,
// .mtx.gz), MATLAB (.mat), SciPy (.npz) or NumPy (.npy), chosen by the file name (writeMatrixFile,
// the same writer as `spyglass-cli convert`). Writing a large matrix takes seconds, so it runs on a
// pool thread; the file appears whole or not at all. Errors go to a message box and the status bar.
#include <QAction>
#include <QFutureWatcher>
#include <QString>

namespace spyglass::widgets {

class MainContext;

class MatrixExportAction : public QAction {
    Q_OBJECT
public:
    explicit MatrixExportAction(MainContext& context, QObject* parent = nullptr);
    ~MatrixExportAction() override;  // waits for a write in progress

    bool isRunning() const { return m_watcher.isRunning(); }

public slots:
    // Starts writing the open matrix to path; false when there is none or a write is running.
    bool exportTo(const QString& path);

signals:
    void exportFinished(const QString& path);
    void exportFailed(const QString& message);

private:
    void triggeredByUser();
    void updateState();
    void deliver();

    MainContext& m_context;
    QString m_path;
    QFutureWatcher<QString> m_watcher;  // the error text; empty when written
};

} // namespace spyglass::widgets
