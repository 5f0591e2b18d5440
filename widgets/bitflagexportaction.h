#pragma once
// File > Export as Bit-Flag Container…: method A's form of the open matrix written to the Spyglass
// container (docs/container-format.md). Encoding a large matrix takes a while, so the export runs in
// app::ExportJob; while it runs the action cancels it. Errors go to a message box and the
// status bar. Disabled without a matrix, or for a complex one (the container holds real values).
#include "core/containerexport.h"
#include "core/exportjob.h"


#include <QAction>

namespace spyglass::widgets {

class MainContext;

class BitFlagExportAction : public QAction {
    Q_OBJECT
public:
    explicit BitFlagExportAction(MainContext& context, QObject* parent = nullptr);

    bool isRunning() const { return m_job.isRunning(); }

public slots:
    // Starts the export of the open matrix; false when there is none or an export is running.
    bool exportTo(const QString& path, spyglass::BitFlagOrder order = spyglass::BitFlagOrder::RowMajor,
                  bool prefixCounts = false);

signals:
    void exportFinished(const QString& path, const QString& summary);
    void exportFailed(const QString& message);

private:
    void triggeredByUser();
    void updateState();

    MainContext& m_context;
    app::ExportJob m_job;
};

} // namespace spyglass::widgets
