#pragma once
// The segmented-DIA layout view (method B): segments drawn as coloured row bands over the spy view,
// each with its diagonals; the merge steps listed; a selected segment's arrays (offsets, values
// diagonal by diagonal, padding marked) as a table; SpMV on CPU / CUDA / cuSPARSE with the times
// plotted and each result checked against the CPU reference; the built layout exports to the
// Spyglass container (button and Tools menu). The compute runs in app::SegmentedDiaJob and the export
// in app::ExportJob; this widget only shows what arrives.
#include "core/containerexport.h"
#include "core/exportjob.h"
#include "core/segdiajob.h"

#include <QWidget>

class QAction;
class QCheckBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableView;

namespace spyglass::widgets {

class MainContext;
class SegDiaArraysModel;
class SegDiaSegmentsModel;
class MeasurementTableModel;
class SampleHint;
class TimingChart;
class TimingOptionsBox;

class SegmentedDiaPanel : public QWidget {
    Q_OBJECT
public:
    explicit SegmentedDiaPanel(MainContext& context, QWidget* parent = nullptr);

    // For tests: the last layout shown.
    const app::SegmentedDiaLayout& layout() const { return m_layout; }
    // The SpMV timing table of the last run: one row per backend (median, ratio to cuSPARSE, bandwidth).
    const MeasurementTableModel* measurements() const { return m_measurements; }
    // The tables' models: the segments, and the arrays of the selected one.
    const SegDiaSegmentsModel& segmentsModel() const { return *m_segmentsModel; }
    const SegDiaArraysModel& arraysModel() const { return *m_arraysModel; }
    QString statusText() const;
    // The empty state: what the method does and, when the open matrix is not banded, the stencil sample.
    SampleHint* sampleHint() const { return m_hint; }
    // The Tools-menu action that exports the built layout (enabled once there is one).
    QAction* exportAction() const { return m_exportAction; }

public slots:
    void build();       // build the format only
    void runSpmv();     // build and run SpMV on the ticked backends
    // Writes the built layout as a segmented-DIA container off the GUI thread; false when there is
    // no layout or work is running. The outcome arrives as exportFinished / exportFailed.
    bool exportContainer(const QString& path);

signals:
    void layoutShown();
    void exportFinished(const QString& path, const QString& summary);
    void exportFailed(const QString& message);

private:
    void updateHint();
    void start(bool withSpmv);
    void showLayout(const app::SegmentedDiaLayout& layout);
    void showSegment(int segment);
    void showFailure(const QString& message);
    void clearLayout();
    void setBusy(bool busy);
    void chooseAndExport();
    void showExportFailure(const QString& message);

    MainContext& m_context;
    app::SegmentedDiaJob m_job;
    app::ExportJob m_exportJob;
    app::SegmentedDiaLayout m_layout;

    QSpinBox* m_threshold;
    QCheckBox* m_merge;
    QCheckBox* m_useCpu;
    QCheckBox* m_useCuda;
    QCheckBox* m_useCusparse;
    QPushButton* m_buildButton;
    QPushButton* m_spmvButton;
    QPushButton* m_cancelButton;
    QPushButton* m_exportButton;
    QAction* m_exportAction;
    SampleHint* m_hint;
    QLabel* m_status;
    QLabel* m_statsLabel;
    SegDiaSegmentsModel* m_segmentsModel;
    QTableView* m_segments;
    QListWidget* m_mergeSteps;
    SegDiaArraysModel* m_arraysModel;
    QTableView* m_arrays;
    QLabel* m_arraysCaption;
    TimingChart* m_timings;
    MeasurementTableModel* m_measurements;
    TimingOptionsBox* m_timingOptions;
};

} // namespace spyglass::widgets
