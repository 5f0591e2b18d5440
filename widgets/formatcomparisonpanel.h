#pragma once
// "Compare formats": every SpMV format on the open matrix, measured in one background run
// (app::FormatComparisonJob): the table (which backend each row ran on, why a row did not run), bar
// charts of time and bytes, and the recommendation. Double-clicking a row asks for that format's own
// tab (openFormatRequested); the main window decides which tab that is. The widget only shows what
// arrives.
#include "core/formatcomparisonjob.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace spyglass::widgets {

class FormatComparisonModel;
class MainContext;
class TimingChart;

class FormatComparisonPanel : public QWidget {
    Q_OBJECT
public:
    explicit FormatComparisonPanel(MainContext& context, QWidget* parent = nullptr);

    // For tests.
    const FormatComparisonModel& model() const { return *m_model; }
    QTableView* table() const { return m_table; }
    QString statusText() const;
    QString recommendationText() const;
    bool isRunning() const { return m_job.isRunning(); }

public slots:
    bool compare();  // false when no matrix is open or a run is going
    void cancel();

signals:
    void comparisonShown();
    void comparisonFailed(const QString& message);
    void openFormatRequested(spyglass::SpmvFormat format);

private:
    void showComparison(const FormatComparison& comparison);
    void setBusy(bool busy);
    void reset();

    MainContext& m_context;
    app::FormatComparisonJob m_job;
    FormatComparisonModel* m_model;
    QComboBox* m_precision;
    QComboBox* m_x;
    QCheckBox* m_useGpu;
    bool m_gpuPresent = false;  // the cached device query's answer: without a GPU the box stays off
    QPushButton* m_compareButton;
    QPushButton* m_cancelButton;
    QProgressBar* m_progress;
    QLabel* m_status;
    QLabel* m_recommendation;
    QTableView* m_table;
    TimingChart* m_times;
    TimingChart* m_bytes;
};

} // namespace spyglass::widgets
