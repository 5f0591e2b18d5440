#pragma once
// The "Scale" tab (docs/scale.md): how `spyglass-cli power --gpus N` would cut the open matrix into
// row partitions balanced by bytes - drawn as row bands on the picture, listed with the span of x
// each reads and what it receives per iteration - and, from a report the CLI wrote (--out), what it
// measured: time per iteration split into compute and communication, the exchange, the Rayleigh
// quotient and the check against the CPU reference. Planning runs in an app::ScalePlanJob.
#include "core/scaleplan.h"
#include "core/scalereport.h"
#include "partitionmodel.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QSpinBox;
class QTableView;

namespace spyglass::widgets {

class MainContext;
class TimingChart;

class ScalePanel : public QWidget {
    Q_OBJECT
public:
    explicit ScalePanel(MainContext& context, QWidget* parent = nullptr);

    const PartitionModel& model() const { return m_model; }
    bool isPlanning() const { return m_job.isRunning(); }
    void setPartitions(int partitions);
    void setFormat(PartitionFormat format);
    // Reads a report of spyglass-cli power; false (and the reason shown) when it cannot be read.
    bool openReport(const QString& path);
    const std::optional<app::PowerReport>& report() const { return m_report; }
    QString reportSummary() const;
    QString status() const;

signals:
    void planShown();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void replan();
    // A run's outcome: shown when it is for the current request; else the newest request starts.
    bool isCurrentRun();
    void showPlan(const PartitionPlan& plan);
    void showPlanError(const QString& message);
    void showReport();
    void clearReport();
    void chooseReport();

    MainContext& m_context;
    PartitionModel m_model;
    app::ScalePlanJob m_job;
    int m_generation = 0;      // counts the requests; a run is for m_runGeneration
    int m_runGeneration = 0;
    bool m_pending = false;
    bool m_stale = false;  // the plan is for another matrix or settings: replan when next shown
    QComboBox* m_format;
    QSpinBox* m_partitions;
    QLabel* m_status;
    QTableView* m_table;
    QLabel* m_reportText;
    TimingChart* m_chart;
    std::optional<app::PowerReport> m_report;
};

} // namespace spyglass::widgets
