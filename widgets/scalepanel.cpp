#include "scalepanel.h"

#include "columnfitter.h"
#include "readonlytable.h"
#include "byteformat.h"
#include "core/appinfo.h"
#include "core/errortext.h"
#include "maincontext.h"
#include "timingchart.h"


#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

namespace spyglass::widgets {

namespace {
// More bands than this would be thinner than a pixel row on a typical picture.
constexpr int kMaxBands = 256;
}

ScalePanel::ScalePanel(MainContext& context, QWidget* parent) : QWidget(parent), m_context(context) {
    auto* intro = new QLabel(tr("How spyglass-cli power --gpus N cuts this matrix: row partitions of about equal bytes "
                                "of the format, each reading a span of x; only what other partitions read travels after "
                                "each multiply (NCCL). Open a report that the CLI wrote (--out report.json) to see what it "
                                "measured."));
    intro->setWordWrap(true);
    m_format = new QComboBox;
    m_format->addItem(tr("CSR (cuSPARSE)"), int(PartitionFormat::Csr));
    m_format->addItem(tr("Segmented DIA (B)"), int(PartitionFormat::SegmentedDia));
    m_partitions = new QSpinBox;
    m_partitions->setRange(1, 64);
    m_partitions->setValue(std::max(2, app::gpuCount()));
    m_partitions->setToolTip(tr("One partition per GPU"));
    auto* openReportButton = new QPushButton(tr("Open power report..."));
    m_status = new QLabel;
    m_status->setWordWrap(true);
    auto* controls = new QFormLayout;
    controls->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);  // fields as wide as their content, not the panel
    controls->addRow(tr("Format"), m_format);
    controls->addRow(tr("Partitions"), m_partitions);
    controls->addRow(openReportButton);
    controls->addRow(m_status);

    m_table = new QTableView;
    m_table->setModel(&m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setMinimumWidth(300);
    ColumnFitter::install(m_table);

    m_reportText = new QLabel(tr("No report open."));
    m_reportText->setWordWrap(true);
    m_reportText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_chart = new TimingChart;
    m_chart->setTitle(tr("One iteration (median), the slowest rank"));
    m_chart->setMinimumWidth(260);
    m_chart->setMaximumHeight(200);  // three bars; the tab stays short enough for the picture above it
    auto* reportBox = new QVBoxLayout;
    m_reportText->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    reportBox->addWidget(m_reportText);
    reportBox->addWidget(m_chart);
    reportBox->addStretch(1);

    auto* row = new QHBoxLayout;
    row->addLayout(controls);
    row->addWidget(m_table, 2);
    row->addLayout(reportBox, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(row, 1);

    connect(m_format, &QComboBox::currentIndexChanged, this, [this] { replan(); });
    connect(m_partitions, &QSpinBox::valueChanged, this, [this] { replan(); });
    connect(openReportButton, &QPushButton::clicked, this, &ScalePanel::chooseReport);
    connect(&m_context, &MainContext::documentChanged, this, [this](const app::MatrixDocument& document) {
        // A report measured on another matrix is not shown beside this one (one of the same size
        // may be the same matrix reopened: it stays, as when it was opened over it).
        if (m_report && (document.isEmpty() || document.rows() != m_report->rows)) clearReport();
        replan();
    });
    m_job.onFinished(this, [this](const PartitionPlan& plan) {
        if (isCurrentRun()) showPlan(plan);
    });
    connect(&m_job, &app::ScalePlanJob::failed, this, [this](const QString& message) {
        if (isCurrentRun()) showPlanError(message);
    });
    connect(&m_job, &app::ScalePlanJob::cancelled, this, [this] { isCurrentRun(); });
    onRowSelected(m_table, this, [this](int row) { m_context.highlightRowBand(this, row); });
    replan();
}

bool ScalePanel::isCurrentRun() {
    const bool current = m_runGeneration == m_generation;
    if (m_pending) {  // the request changed while this one ran: start the newest
        m_pending = false;
        replan();
    }
    return current;
}

void ScalePanel::setPartitions(int partitions) { m_partitions->setValue(partitions); }

void ScalePanel::setFormat(PartitionFormat format) { m_format->setCurrentIndex(m_format->findData(int(format))); }

QString ScalePanel::status() const { return m_status->text(); }

void ScalePanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_stale) replan();
}

void ScalePanel::replan() {
    ++m_generation;
    const app::MatrixDocument& document = m_context.document();
    m_stale = false;
    if (document.isEmpty()) {
        m_model.clear();
        m_context.setRowBands(this, {});
        m_status->setText(tr("Open a matrix to see its partitions."));
        return;
    }
    // Planning builds the matrix's CSR (or segmented DIA) beside it: a large matrix would more than
    // double the memory of opening it. So the plan is made only while this tab is in front.
    if (!isVisible()) {
        m_stale = true;
        m_model.clear();
        m_context.setRowBands(this, {});
        m_status->setText(tr("The partitions are planned when this tab is shown."));
        return;
    }
    if (m_job.isRunning()) {
        m_pending = true;
        return;
    }
    app::ScalePlanRequest request;
    request.matrix = document.matrix();  // immutable, shared with the worker
    request.format = PartitionFormat(m_format->currentData().toInt());
    request.partitions = m_partitions->value();
    m_runGeneration = m_generation;
    m_status->setText(tr("Planning %1 partitions...").arg(request.partitions));
    m_job.start(request);
}

void ScalePanel::showPlanError(const QString& message) {
    m_model.clear();
    m_context.setRowBands(this, {});
    m_status->setText(message);
    emit planShown();
}

void ScalePanel::showPlan(const PartitionPlan& plan) {
    m_model.setPlan(plan);
    QList<RowBand> bands;
    if (int(plan.parts.size()) <= kMaxBands) {
        for (std::size_t p = 0; p < plan.parts.size(); ++p) {
            RowBand band;
            band.rowBegin = plan.parts[p].rowBegin;
            band.rowEnd = plan.parts[p].rowEnd;
            band.color = p % 2 ? QColor(40, 120, 220) : QColor(255, 160, 0);
            band.label = tr("GPU %1").arg(p);
            band.details = tr("partition %1: rows [%2, %3), %4, reads x[%5, %6), receives %7 per iteration")
                               .arg(p)
                               .arg(plan.parts[p].rowBegin)
                               .arg(plan.parts[p].rowEnd)
                               .arg(formatBytes(double(plan.parts[p].bytes)))
                               .arg(plan.parts[p].xBegin)
                               .arg(plan.parts[p].xEnd)
                               .arg(formatBytes(double(plan.receivedBytes(int(p)))));
            bands.push_back(band);
        }
    }
    m_context.setRowBands(this, bands);
    QString text = tr("%1 partitions (imbalance %2); exchange: %3, %4 per iteration (send/recv %5, all-gather %6).")
                       .arg(plan.parts.size())
                       .arg(plan.imbalance(), 0, 'f', 3)
                       .arg(QString::fromLatin1(toString(plan.exchange)))
                       .arg(formatBytes(double(plan.exchangeBytes())))
                       .arg(formatBytes(double(plan.sendRecvBytes())))
                       .arg(formatBytes(double(plan.allGatherBytes())));
    if (int(plan.parts.size()) < m_partitions->value())
        text += tr(" The format allows no more cuts (segmented DIA cuts between segments only).");
    if (plan.rows != plan.cols) text += tr(" Not square: power iteration needs a square matrix (SpMV still splits).");
    m_status->setText(text);
    emit planShown();
}

void ScalePanel::chooseReport() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a spyglass-cli power report"), QString(),
                                                      tr("Power reports (*.json);;All files (*)"));
    if (!path.isEmpty()) openReport(path);
}

bool ScalePanel::openReport(const QString& path) {
    try {
        m_report = app::readPowerReport(path);
    } catch (const std::exception& e) {
        m_reportText->setText(app::errorText(e));
        return false;
    }
    showReport();
    // The report's own partitions on the picture: plan the same cut of the open matrix (the planner
    // is deterministic), when the report is about a matrix of this size.
    const app::MatrixDocument& document = m_context.document();
    if (!document.isEmpty() && document.rows() == m_report->rows) {
        setFormat(m_report->format == QLatin1String("segdia") ? PartitionFormat::SegmentedDia : PartitionFormat::Csr);
        setPartitions(int(m_report->partitions.size()));
    }
    return true;
}

void ScalePanel::clearReport() {
    m_report.reset();
    m_reportText->setText(tr("No report open."));
    m_chart->setTimings({}, tr("ms"));
}

QString ScalePanel::reportSummary() const { return m_reportText->text(); }

void ScalePanel::showReport() {
    const app::PowerReport& r = *m_report;
    QString text = tr("%1 (%2 rows, %3, %4): %5\n").arg(r.matrix).arg(r.rows).arg(r.format, r.type, r.device);
    text += tr("%1 rank(s), %2 partitions, exchange %3 (%4 per iteration)\n")
                .arg(r.ranks)
                .arg(r.partitions.size())
                .arg(r.exchange, formatBytes(r.exchangeBytes));
    text += tr("per iteration %1 ms: compute %2 ms, communication %3 ms (%4 %), median of %5\n")
                .arg(r.iterationMs, 0, 'f', 4)
                .arg(r.computeMs, 0, 'f', 4)
                .arg(r.communicationMs, 0, 'f', 4)
                .arg(100 * r.communicationShare, 0, 'f', 1)
                .arg(r.timedIterations);
    if (r.fusedStep) text += tr("each step one fused pass (multiply and dot products)\n");
    if (r.exchangeMs > 0)
        text += r.overlappedExchange ? tr("exchange %1 ms, %2 ms of it hidden behind the multiply of each GPU's own columns\n")
                                           .arg(r.exchangeMs, 0, 'f', 4)
                                           .arg(r.hiddenExchangeMs, 0, 'f', 4)
                                     : tr("exchange %1 ms, after the scaling\n").arg(r.exchangeMs, 0, 'f', 4);
    text += tr("Rayleigh quotient %1").arg(r.rayleigh, 0, 'g', 15);
    if (r.checked)
        text += r.agrees ? tr(", agrees with the CPU reference (relative difference %1)").arg(r.checkDifference, 0, 'g', 3)
                         : tr(", DISAGREES with the CPU reference (relative difference %1)").arg(r.checkDifference, 0, 'g', 3);
    m_reportText->setText(text);
    QVector<QPair<QString, double>> timings{{tr("compute"), r.computeMs}, {tr("communication"), r.communicationMs}};
    if (r.exchangeMs > 0) timings.append({tr("exchange"), r.exchangeMs});
    if (r.hiddenExchangeMs > 0) timings.append({tr("hidden exchange"), r.hiddenExchangeMs});
    timings.append({tr("iteration"), r.iterationMs});
    m_chart->setTimings(timings);
}

} // namespace spyglass::widgets
