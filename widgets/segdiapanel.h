#pragma once
// The segmented-DIA layout view (method B): segments drawn as coloured row bands over the spy view,
// each with its diagonals; the merge steps listed; a selected segment's arrays (offsets, values
// diagonal by diagonal, padding marked) as a table; SpMV on CPU / CUDA / cuSPARSE with the times
// plotted and each result checked against the CPU reference. The compute runs in
// app::SegmentedDiaJob; this widget only shows what arrives.
#include "core/segdiajob.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace spyglass::widgets {

class MainContext;
class TimingChart;

class SegmentedDiaPanel : public QWidget {
    Q_OBJECT
public:
    explicit SegmentedDiaPanel(MainContext& context, QWidget* parent = nullptr);

    // For tests: the last layout shown.
    const app::SegmentedDiaLayout& layout() const { return m_layout; }
    QString statusText() const;

public slots:
    void build();       // build the format only
    void runSpmv();     // build and run SpMV on the ticked backends

signals:
    void layoutShown();

private:
    void start(bool withSpmv);
    void showLayout(const app::SegmentedDiaLayout& layout);
    void showSegment(int segment);
    void showFailure(const QString& message);
    void clearLayout();
    void setBusy(bool busy);

    MainContext& m_context;
    app::SegmentedDiaJob m_job;
    app::SegmentedDiaLayout m_layout;

    QSpinBox* m_threshold;
    QCheckBox* m_merge;
    QCheckBox* m_useCpu;
    QCheckBox* m_useCuda;
    QCheckBox* m_useCusparse;
    QPushButton* m_buildButton;
    QPushButton* m_spmvButton;
    QPushButton* m_cancelButton;
    QLabel* m_status;
    QLabel* m_statsLabel;
    QTableWidget* m_segments;
    QListWidget* m_mergeSteps;
    QTableWidget* m_arrays;
    QLabel* m_arraysCaption;
    TimingChart* m_timings;
};

} // namespace spyglass::widgets
