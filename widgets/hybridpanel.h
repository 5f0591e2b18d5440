#pragma once
// The dense-region view (method D): detects dense rectangles, triangles and diagonal bands in a
// matrix's pattern (binary: encoded by their zeros; real: by their values), draws them over the spy
// view (a region selected in the table is highlighted and brought into view), lists them with their
// fill and stored zeros, runs SpMV on a binary encoding on the CPU, CUDA and cuSPARSE
// (HybridSpmvView), and exports the encoding (container, regions JSON, residual Matrix Market). The
// work runs in app::HybridDetectionJob and the exports in an app::ExportJob (checked writer); this
// widget only shows what arrives.
#include "core/exportjob.h"
#include "core/hybriddetectionjob.h"
#include "hybriddetectionlayers.h"

#include <QTimer>
#include <QWidget>

#include <functional>

class QAction;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QSortFilterProxyModel;
class QTableView;

namespace spyglass::widgets {

class HybridComponentsModel;
class HybridRegionsModel;
class HybridSpmvView;
class MainContext;
class SampleHint;

class HybridPanel : public QWidget {
    Q_OBJECT
public:
    // The destructor waits for an export in flight (the file is written whole or not at all).
    explicit HybridPanel(MainContext& context, QWidget* parent = nullptr);

    const app::HybridDetectionResult& result() const { return m_result; }
    QString statusText() const;
    // The SpMV part (CPU / CUDA / cuSPARSE on the encoding), for tests and scripted runs.
    HybridSpmvView* spmvView() const { return m_spmv; }
    // The tables' models: the regions kept, and the components the detector labelled.
    const HybridRegionsModel& regionsModel() const { return *m_regionsModel; }
    const HybridComponentsModel& componentsModel() const { return *m_componentsModel; }
    // What the picture shows while this tab is in front: the matrix with the regions, or the
    // detector's thumbnail, mask or components.
    DetectionLayer layer() const;
    void setLayer(DetectionLayer layer);
    // Sets the three detection parameters as a user would (after a first detection this re-runs it).
    void setParameters(int cellsPerPixel, double minFill, double pixelThreshold);
    // The empty state: what the method does and, when the open matrix does not suit it, a sample.
    SampleHint* sampleHint() const { return m_hint; }
    // The Tools-menu action that exports the encoding (enabled once there is one).
    QAction* exportAction() const { return m_exportAction; }

    bool isDetecting() const { return m_job.isRunning(); }

public slots:
    void detect();
    void cancelDetection();  // the Cancel button: the tab keeps showing the last complete result
    // Each starts an atomic write off the GUI thread and returns whether it started (false: no
    // encoding yet, or detection or another export is running). The outcome arrives as
    // exportFinished / exportFailed and in the status line (a failure also in a message box).
    bool exportContainer(const QString& path);
    bool exportRegionsJson(const QString& path);
    bool exportResidual(const QString& path);
    bool isExporting() const { return m_export.isRunning(); }

signals:
    void resultShown();
    void exportFinished(const QString& path);
    void exportFailed(const QString& path, const QString& message);

private:
    void showResult(const app::HybridDetectionResult& result);
    void showFailure(const QString& message);
    void clearResult();
    void parametersChanged();
    bool startPendingRun();  // starts the re-run asked for while a run was going; true if started
    void applyLayer();
    void showComponents();
    void setBusy(bool busy);
    void chooseAndExport();
    using Writer = std::function<void(const app::HybridDetectionResult& result, const std::atomic<bool>* cancel)>;
    bool startExport(const QString& path, Writer write);
    void exportDone(bool written, const QString& error);

    MainContext& m_context;
    app::HybridDetectionJob m_job;
    app::HybridDetectionResult m_result;
    app::ExportJob m_export;  // busy until its outcome is shown

    QSpinBox* m_cellsPerPixel;
    QDoubleSpinBox* m_minFill;
    QDoubleSpinBox* m_pixelThreshold;
    QPushButton* m_detectButton;
    QPushButton* m_cancelButton;
    QPushButton* m_exportButton;
    SampleHint* m_hint;
    QLabel* m_status;
    QLabel* m_summary;
    HybridRegionsModel* m_regionsModel;
    QTableView* m_regions;
    HybridComponentsModel* m_componentsModel;
    QTableView* m_components;
    QSortFilterProxyModel* m_componentsProxy;  // the table's view of m_componentsModel: sorted, "too small" hidden on demand
    QCheckBox* m_hideTooSmall;
    QCheckBox* m_live;
    QComboBox* m_layer;
    QTimer m_retune;            // debounces parameter changes
    // The matrix of the run in flight and of m_result: a re-detection of the same matrix reuses the
    // result's pattern (and CSR) instead of building them again.
    std::shared_ptr<const Matrix> m_runMatrix, m_resultMatrix;
    bool m_rerunPending = false;
    bool m_detectedOnce = false;
    QList<SpyOverlay> m_regionOverlays;
    HybridSpmvView* m_spmv;
    QTabWidget* m_pages;
    QAction* m_exportAction;
};

} // namespace spyglass::widgets
