#pragma once
// The dense-region view (method D): detects dense rectangles, triangles and diagonal bands in a
// matrix's pattern (binary: encoded by their zeros; real: by their values), draws them over the spy view, lists them with their fill and stored zeros, compares
// the hybrid encoding's bytes with CSR, and exports the encoding (container, regions JSON, residual
// Matrix Market). The work runs in app::RegionDetectionJob and the exports on a pool thread; this
// widget only shows what arrives.
#include "core/regiondetectionjob.h"

#include <QFutureWatcher>
#include <QWidget>

#include <functional>

class QAction;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace spyglass::widgets {

class MainContext;
class SampleHint;

class HybridPanel : public QWidget {
    Q_OBJECT
public:
    explicit HybridPanel(MainContext& context, QWidget* parent = nullptr);
    ~HybridPanel() override;  // waits for an export in flight (the file is written whole or not at all)

    const app::RegionDetectionResult& result() const { return m_result; }
    QString statusText() const;
    // The empty state: what the method does and, when the open matrix does not suit it, a sample.
    SampleHint* sampleHint() const { return m_hint; }
    // The Tools-menu action that exports the encoding (enabled once there is one).
    QAction* exportAction() const { return m_exportAction; }

public slots:
    void detect();
    // Each starts an atomic write off the GUI thread and returns whether it started (false: no
    // encoding yet, or detection or another export is running). The outcome arrives as
    // exportFinished / exportFailed and in the status line (a failure also in a message box).
    bool exportContainer(const QString& path);
    bool exportRegionsJson(const QString& path);
    bool exportResidual(const QString& path);
    bool isExporting() const { return m_exporting; }

signals:
    void resultShown();
    void exportFinished(const QString& path);
    void exportFailed(const QString& path, const QString& message);

private:
    void showResult(const app::RegionDetectionResult& result);
    void showFailure(const QString& message);
    void clearResult();
    void setBusy(bool busy);
    void chooseAndExport();
    using Writer = std::function<void(const app::RegionDetectionResult& result)>;
    bool startExport(const QString& path, Writer write);
    void exportDone();

    MainContext& m_context;
    app::RegionDetectionJob m_job;
    app::RegionDetectionResult m_result;
    QFutureWatcher<QString> m_export;  // the error message; empty: written
    QString m_exportPath;
    bool m_exporting = false;  // from start until its outcome has been shown (not the future's state,
                               // which ends before the watcher's signal arrives)

    QSpinBox* m_cellsPerPixel;
    QDoubleSpinBox* m_minFill;
    QDoubleSpinBox* m_pixelThreshold;
    QPushButton* m_detectButton;
    QPushButton* m_cancelButton;
    QPushButton* m_exportButton;
    SampleHint* m_hint;
    QLabel* m_status;
    QLabel* m_summary;
    QTableWidget* m_regions;
    QAction* m_exportAction;
};

} // namespace spyglass::widgets
