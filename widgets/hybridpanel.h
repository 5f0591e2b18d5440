#pragma once
// The dense-region view (method D): detects dense rectangles, triangles and diagonal bands in a
// binary matrix, draws them over the spy view, lists them with their fill and stored zeros, compares
// the hybrid encoding's bytes with CSR, and exports the encoding (container, regions JSON, residual
// Matrix Market). The work runs in app::RegionDetectionJob; this widget only shows what arrives.
#include "core/regiondetectionjob.h"

#include <QWidget>

class QAction;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace spyglass::widgets {

class MainContext;

class HybridPanel : public QWidget {
    Q_OBJECT
public:
    explicit HybridPanel(MainContext& context, QWidget* parent = nullptr);

    const app::RegionDetectionResult& result() const { return m_result; }
    QString statusText() const;
    // The Tools-menu action that exports the encoding (enabled once there is one).
    QAction* exportAction() const { return m_exportAction; }

public slots:
    void detect();
    // Each writes atomically and reports in the status line; false on failure (message shown).
    bool exportContainer(const QString& path);
    bool exportRegionsJson(const QString& path);
    bool exportResidual(const QString& path);

signals:
    void resultShown();

private:
    void showResult(const app::RegionDetectionResult& result);
    void showFailure(const QString& message);
    void clearResult();
    void setBusy(bool busy);
    void chooseAndExport();

    MainContext& m_context;
    app::RegionDetectionJob m_job;
    app::RegionDetectionResult m_result;

    QSpinBox* m_cellsPerPixel;
    QDoubleSpinBox* m_minFill;
    QDoubleSpinBox* m_pixelThreshold;
    QPushButton* m_detectButton;
    QPushButton* m_cancelButton;
    QPushButton* m_exportButton;
    QLabel* m_status;
    QLabel* m_summary;
    QTableWidget* m_regions;
    QAction* m_exportAction;
};

} // namespace spyglass::widgets
