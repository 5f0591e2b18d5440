// Batched-SVD panel: form -> BatchedSvdJob requests (one per checked backend) -> table and charts.
#include "batchedsvdpanel.h"

#include "batchedsvdaccuracymodel.h"
#include "batchpanelform.h"
#include "readonlytable.h"
#include "core/deviceinfocache.h"
#include "linechart.h"
#include "measurementtablemodel.h"
#include "timingchart.h"
#include "timingoptionsbox.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace spyglass::widgets {

namespace {

enum Input { RandomInput, RankDeficientInput, GradedInput, SonarInput, FileInput };

QString number(double x) { return std::isnan(x) ? QStringLiteral("—") : QString::number(x, 'g', 3); }

QString backendName(const QString& backend) { return BatchedSvdAccuracyModel::backendName(backend); }

} // namespace

BatchedSvdPanel::BatchedSvdPanel(QWidget* parent) : BatchRunPanel(parent), m_job(new app::BatchedSvdSweepJob(this)) {
    m_rows = new QSpinBox;
    m_rows->setObjectName(QStringLiteral("rows"));
    m_rows->setRange(1, 1024);  // the library's limit; m < n is allowed here and refused with a message
    m_rows->setValue(16);
    m_columns = new QSpinBox;
    m_columns->setObjectName(QStringLiteral("columns"));
    m_columns->setRange(1, kMaxSvdColumns);
    m_columns->setValue(16);
    // 10^4 matrices: enough work that the GPU's time, not the launch, is what is measured.
    m_batch = batchform::batchSpinBox(10000);
    m_batch->setToolTip(tr("10^4 by default: the GPU's work then dominates launch overhead, so the times compare methods"));
    m_timingOptions = new TimingOptionsBox;
    m_precision = batchform::precisionComboBox(int(app::SvdPrecision::F32), int(app::SvdPrecision::F64),
                                               int(app::SvdPrecision::C64), int(app::SvdPrecision::C128));
    m_input = new QComboBox;
    m_input->setObjectName(QStringLiteral("input"));
    m_input->addItem(tr("Random entries in [-1, 1]"), RandomInput);
    m_input->addItem(tr("Rank-deficient (rank n/2)"), RankDeficientInput);
    m_input->addItem(tr("Graded singular values"), GradedInput);
    m_input->addItem(tr("Sonar-like array snapshots"), SonarInput);
    m_input->addItem(tr("Stacked matrices from a file"), FileInput);
    m_input->setItemData(SonarInput,
                         tr("m snapshots of an n-sensor line array receiving clamp(n/4, 1, 4) plane waves plus noise "
                            "(complex for c64/c128)"),
                         Qt::ToolTipRole);
    m_file = new QLineEdit;
    m_file->setObjectName(QStringLiteral("file"));
    m_file->setPlaceholderText(tr("Matrix Market, rows = B*m, cols = n"));
    m_browse = new QPushButton(tr("Browse..."));
    m_seed = new QSpinBox;
    m_seed->setObjectName(QStringLiteral("seed"));
    m_seed->setRange(0, 1 << 30);
    m_seed->setValue(1);
    m_tolerance = new QLineEdit;
    m_tolerance->setObjectName(QStringLiteral("tolerance"));
    m_tolerance->setPlaceholderText(tr("automatic (m * eps)"));
    m_maxSweeps = new QSpinBox;
    m_maxSweeps->setObjectName(QStringLiteral("maxSweeps"));
    m_maxSweeps->setRange(1, 1000);
    m_maxSweeps->setValue(30);

    auto* form = batchform::fieldForm({{tr("Rows m"), m_rows},
                                       {tr("Columns n (<= 64)"), m_columns},
                                       {tr("Batch"), m_batch},
                                       {tr("Type"), m_precision},
                                       {tr("Input"), m_input},
                                       {tr("File"), batchform::stackedFileRow(this, m_file, m_browse)},
                                       {tr("Seed"), m_seed},
                                       {tr("Tolerance"), m_tolerance},
                                       {tr("Max sweeps"), m_maxSweeps},
                                       {tr("Timing"), m_timingOptions}});

    m_useCpu = batchform::cpuReferenceBox();
    m_useCuda = new QCheckBox(tr("Spyglass CUDA, mapping:"));
    m_useCuda->setObjectName(QStringLiteral("useCuda"));
    // The CUDA mappings the library offers; Auto picks the fastest for the shape, the others are
    // there to compare (the seed's two mappings, and its real embedding for complex input).
    m_variant = new QComboBox;
    m_variant->setObjectName(QStringLiteral("variant"));
    for (SvdVariant variant : {SvdVariant::Auto, SvdVariant::BlockPerMatrix, SvdVariant::RegisterGroups, SvdVariant::RegisterResident,
                               SvdVariant::BlockPerPair, SvdVariant::RealEmbedding})
        m_variant->addItem(QString::fromLatin1(toString(variant)), static_cast<int>(variant));
    m_useCusolver = new QCheckBox(tr("cuSOLVER gesvdjBatched (m, n <= 32)"));
    m_useCusolver->setObjectName(QStringLiteral("useCusolver"));
    // The fastest batched vendor path; approximate (through A^H A), so its U is the least accurate.
    m_useGesvda = new QCheckBox(tr("cuSOLVER gesvdaStridedBatched (approximate)"));
    m_useGesvda->setObjectName(QStringLiteral("useGesvda"));
    m_gpuNote = new QLabel;
    m_gpuNote->setObjectName(QStringLiteral("gpuNote"));
    m_gpuNote->setWordWrap(true);
    // Off until the device query (on a worker thread) says what there is.
    for (QWidget* w : {static_cast<QWidget*>(m_useCuda), static_cast<QWidget*>(m_useCusolver), static_cast<QWidget*>(m_useGesvda),
                       static_cast<QWidget*>(m_variant)})
        w->setEnabled(false);
    m_gpuNote->setText(tr("Checking for a GPU…"));
    app::DeviceInfoCache::shared().whenReady(this, [this](const DeviceInfo& device) { showDevice(device); });
    auto* backends = batchform::backendsBox(m_useCpu, m_useCuda, m_variant, {m_useCusolver, m_useGesvda, m_gpuNote});

    m_runButton = new QPushButton(tr("Decompose"));
    m_cancelButton = new QPushButton(tr("Cancel"));
    m_cancelButton->setObjectName(QStringLiteral("cancel"));
    auto* buttons = batchform::runCancelRow(m_runButton, m_cancelButton);

    m_result = new QLabel(tr("No run yet. Computes the singular values (and vectors) of a batch of small matrices it generates, by one-sided Jacobi on the GPU, beside cuSOLVER and the CPU reference: no open matrix needed."));
    m_result->setObjectName(QStringLiteral("result"));
    m_result->setWordWrap(true);
    m_result->setTextFormat(Qt::RichText);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_result->setAlignment(Qt::AlignTop | Qt::AlignLeft);

    m_flaggedTitle = new QLabel(tr("Flagged matrices"));
    m_flaggedTitle->setWordWrap(true);
    m_flagged = new QListWidget;
    m_flagged->setObjectName(QStringLiteral("flagged"));

    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->addLayout(form);
    leftLayout->addWidget(backends);
    leftLayout->addLayout(buttons);
    leftLayout->addWidget(m_progress);
    leftLayout->addWidget(m_result);
    leftLayout->addWidget(m_flaggedTitle);
    leftLayout->addWidget(m_flagged, 1);

    m_model = new BatchedSvdAccuracyModel(this);
    m_table = readOnlyTable(m_model, QStringLiteral("accuracy"), TableTrait::NoRowNumbers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // GPU names are long ("NVIDIA H100 80GB HBM3"): the device column elides, its tooltip has it all.
    m_table->horizontalHeader()->setSectionResizeMode(BatchedSvdAccuracyModel::DeviceColumn, QHeaderView::Interactive);
    m_table->setColumnWidth(BatchedSvdAccuracyModel::DeviceColumn, 110);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->setWordWrap(false);

    m_matrix = new QSpinBox;
    m_matrix->setObjectName(QStringLiteral("matrixIndex"));
    m_matrix->setRange(0, 0);
    m_matrix->setEnabled(false);
    m_matrixInfo = new QLabel;
    m_matrixInfo->setObjectName(QStringLiteral("matrixInfo"));
    m_matrixInfo->setWordWrap(true);
    auto* matrixRow = new QHBoxLayout;
    matrixRow->addWidget(new QLabel(tr("Matrix")));
    matrixRow->addWidget(m_matrix);
    matrixRow->addWidget(m_matrixInfo, 1);

    m_spectrum = new LineChart;
    m_spectrum->setObjectName(QStringLiteral("singularValues"));
    m_spectrum->setTitle(tr("Singular values of the chosen matrix"));
    m_spectrum->setAxisLabels(tr("index k"), tr("singular value σ"));
    m_spectrum->setLogY(true);
    m_spectrum->setIntegerX(true);
    m_convergence = new LineChart;
    m_convergence->setObjectName(QStringLiteral("convergence"));
    m_convergence->setTitle(tr("Convergence of the chosen matrix"));
    m_convergence->setAxisLabels(tr("sweep"), tr("max off-norm in the sweep"));
    m_convergence->setLogY(true);
    m_convergence->setLegendCorner(Qt::AlignLeft | Qt::AlignBottom);  // the history falls to the right
    m_convergence->setIntegerX(true);
    m_timing = new TimingChart;
    m_timing->setObjectName(QStringLiteral("timing"));
    m_timing->setTitle(tr("Compute time per backend"));

    auto* charts = new QWidget;
    auto* grid = new QGridLayout(charts);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addLayout(matrixRow, 0, 0, 1, 2);
    grid->addWidget(m_spectrum, 1, 0);
    grid->addWidget(m_convergence, 1, 1);
    grid->addWidget(m_timing, 2, 0, 1, 2);
    grid->setRowStretch(1, 3);
    grid->setRowStretch(2, 1);
    // The timing table heads the right column, in view beside the form.
    m_measurements = new MeasurementTableModel(this);
    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(measurementTable(m_measurements));
    right->addWidget(m_table);
    right->addWidget(charts);
    right->setStretchFactor(0, 1);
    right->setStretchFactor(1, 4);
    batchform::formBesideResults(this, left, right);

    connect(m_input, &QComboBox::currentIndexChanged, this, &BatchedSvdPanel::updateInputControls);
    connect(m_runButton, &QPushButton::clicked, this, &BatchedSvdPanel::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &BatchedSvdPanel::cancel);
    connect(m_matrix, &QSpinBox::valueChanged, this, &BatchedSvdPanel::updateMatrixViews);
    m_job->onFinished(this, &BatchedSvdPanel::onFinished);
    watchJob(m_job);
    updateInputControls();
    updateMatrixViews();
}

BatchedSvdPanel::~BatchedSvdPanel() = default;

QString BatchedSvdPanel::resultText() const { return m_lines.join(QLatin1Char('\n')); }

void BatchedSvdPanel::updateInputControls() {
    const bool file = m_input->currentData().toInt() == FileInput;
    m_file->setEnabled(file);
    m_browse->setEnabled(file);
    m_columns->setEnabled(!file);  // a file brings its own n and batch; m says how it is cut
    m_batch->setEnabled(!file);
    m_seed->setEnabled(!file);
}

app::BatchedSvdRequest BatchedSvdPanel::requestFor(SvdBackend backend) const {
    app::BatchedSvdRequest request;
    request.m = m_rows->value();
    request.n = m_columns->value();
    request.batch = m_batch->value();
    request.precision = static_cast<app::SvdPrecision>(m_precision->currentData().toInt());
    const int input = m_input->currentData().toInt();
    request.kind = input == RankDeficientInput ? SvdBatchKind::RankDeficient
                 : input == GradedInput        ? SvdBatchKind::Graded
                 : input == SonarInput         ? SvdBatchKind::SonarSnapshots
                                               : SvdBatchKind::Random;
    if (input == FileInput) request.inputFile = m_file->text().trimmed();
    request.seed = static_cast<quint64>(m_seed->value());
    const QString tolerance = m_tolerance->text().trimmed();
    bool ok = true;
    request.tolerance = tolerance.isEmpty() ? 0.0 : tolerance.toDouble(&ok);
    if (!ok) request.tolerance = -1;  // refused by the library with the valid range
    request.maxSweeps = m_maxSweeps->value();
    request.backend = backend;
    request.variant = static_cast<SvdVariant>(m_variant->currentData().toInt());
    request.timing = m_timingOptions->options();
    return request;
}

void BatchedSvdPanel::run() {
    if (isRunning()) return;
    app::BackendSweepRequest<app::BatchedSvdRequest> sweep;
    sweep.name = [](const app::BatchedSvdRequest& request) {
        return BatchedSvdAccuracyModel::backendName(QString::fromLatin1(toString(request.backend)));
    };
    m_lines.clear();
    m_errors.clear();
    if (m_input->currentData().toInt() == FileInput && m_file->text().trimmed().isEmpty()) {
        addFailureLine(tr("Choose a file of stacked matrices first."));
        showLines();
        emit allRunsFinished();
        return;
    }
    if (m_useCpu->isChecked()) sweep.runs << requestFor(SvdBackend::Reference);
    if (m_useCuda->isEnabled() && m_useCuda->isChecked()) sweep.runs << requestFor(SvdBackend::Cuda);
    if (m_useCusolver->isEnabled() && m_useCusolver->isChecked()) {
        if (m_rows->value() > kMaxCusolverSvdSize)
            m_lines << tr("cuSOLVER skipped: gesvdjBatched takes m, n <= %1 (m is %2).").arg(kMaxCusolverSvdSize).arg(m_rows->value());
        else
            sweep.runs << requestFor(SvdBackend::Cusolver);
    }
    if (m_useGesvda->isEnabled() && m_useGesvda->isChecked()) sweep.runs << requestFor(SvdBackend::CusolverGesvda);
    if (sweep.runs.isEmpty()) {
        addFailureLine(tr("Choose at least one backend that can run."));
        showLines();
        emit allRunsFinished();
        return;
    }
    m_results.clear();
    m_model->clear();
    m_measurements->clear();
    m_timing->clear();
    m_flagged->clear();
    m_flaggedTitle->setText(tr("Flagged matrices"));
    updateMatrixViews();
    showLines();
    setRunning(true);
    m_job->start(sweep);
}

void BatchedSvdPanel::onFinished(const app::BatchedSvdSweep& sweep) {
    for (const auto& run : sweep.runs) {
        if (run.result) {
            showRun(*run.result);
        } else {
            addFailureLine(tr("%1 failed: %2").arg(run.name, run.error));
        }
    }
    if (sweep.cancelled) m_lines << tr("Cancelled.");
    showLines();
    finishRuns();
}

void BatchedSvdPanel::showRun(const app::BatchedSvdResult& result) {
    m_results.append(result);
    m_model->append(result);
    QVector<QPair<QString, double>> times;
    for (const auto& r : m_results) times.append({backendName(r.backend), r.timing.medianMs});
    const bool vendor = result.backend == QLatin1String(toString(SvdBackend::Cusolver)) ||
                        result.backend == QLatin1String(toString(SvdBackend::CusolverGesvda));
    m_measurements->addMeasurement({backendName(result.backend), result.timing, result.bytesMoved, vendor, {}});
    m_timing->setTimings(times, QStringLiteral("ms"));
    m_flagged->clear();
    m_flaggedTitle->setText(tr("Flagged matrices (%1): %2 not converged, %3 NaN/Inf%4")
                                .arg(backendName(result.backend))
                                .arg(result.notConvergedCount)
                                .arg(result.nonFiniteCount)
                                .arg(result.flaggedIndices.size() < result.notConvergedCount + result.nonFiniteCount
                                         ? tr("; first %1 listed").arg(result.flaggedIndices.size()) : QString()));
    for (int f = 0; f < result.flaggedIndices.size(); ++f) {
        const qint64 b = result.flaggedIndices[f];
        QString text = QStringLiteral("%1: %2").arg(b).arg(QString::fromLatin1(toString(static_cast<SvdStatus>(result.flaggedStatus[f]))));
        if (result.flaggedStatus[f] == int(SvdStatus::NotConverged) && result.sweepsReported && b < result.detailCount)
            text += tr(": %1 sweeps, off %2").arg(result.sweeps[b]).arg(number(result.offOrthogonality[b]));
        m_flagged->addItem(text);
    }
    qint64 detail = result.detailCount;
    for (const auto& r : m_results) detail = std::min(detail, r.detailCount);
    m_matrix->setRange(0, static_cast<int>(std::max<qint64>(0, detail - 1)));
    m_matrix->setEnabled(detail > 0);
    m_matrix->setToolTip(detail < result.batch ? tr("The first %1 matrices keep their detail").arg(detail) : QString());
    m_lines << result.summary();
    updateMatrixViews();
}

// A failure's line is drawn in red (showLines): the lines that are errors are kept apart.
void BatchedSvdPanel::addFailureLine(const QString& message) {
    m_errors << message;
    m_lines << message;
}

void BatchedSvdPanel::showDevice(const DeviceInfo& device) {
    const bool gpu = device.present;
    const QString reason = QString::fromStdString(device.reason);
    for (QCheckBox* box : {m_useCuda, m_useCusolver, m_useGesvda}) {
        box->setEnabled(gpu);
        box->setChecked(gpu);
        if (!gpu) box->setToolTip(tr("No GPU: %1").arg(reason));
    }
    m_variant->setEnabled(gpu);
    if (gpu) {
        m_gpuNote->setText(tr("GPU backends available."));
    } else {
        m_gpuNote->setText(tr("No GPU here: only the CPU reference runs.\n(%1)").arg(reason));
        m_gpuNote->setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #664d03; border: 1px solid #ffe69c; padding: 4px; }"));
    }
}

void BatchedSvdPanel::showLines() {
    if (m_lines.isEmpty()) {
        m_result->setText(isRunning() ? tr("Running...") : tr("No run yet. Computes the singular values (and vectors) of a batch of small matrices it generates, by one-sided Jacobi on the GPU, beside cuSOLVER and the CPU reference: no open matrix needed."));
        return;
    }
    QStringList html;
    for (const QString& line : m_lines) {
        const QString escaped = line.toHtmlEscaped();
        html << (m_errors.contains(line) ? QStringLiteral("<span style=\"color:#b00020\"><b>%1</b></span>").arg(escaped) : escaped);
    }
    m_result->setText(html.join(QStringLiteral("<br>")));
}

void BatchedSvdPanel::updateMatrixViews() {
    const qint64 index = m_matrix->value();
    QVector<LineSeries> spectrum, convergence;
    QStringList info;
    double tolerance = 0;
    for (const auto& r : m_results) {
        if (index >= r.detailCount) continue;
        const QString name = backendName(r.backend);
        LineSeries s{name, {}, {}, true};
        const QVector<double> sigma = r.singularValues(index);
        for (int k = 0; k < sigma.size(); ++k) {
            s.x.append(k + 1);
            s.y.append(sigma[k]);
        }
        spectrum.append(s);
        tolerance = r.tolerance;
        const auto status = static_cast<SvdStatus>(r.status[index]);
        if (status == SvdStatus::NonFiniteInput) {
            info << tr("%1: NaN/Inf input").arg(name);
            continue;
        }
        if (!r.sweepsReported) {
            info << tr("%1: %2 (reports no sweeps)").arg(name, QString::fromLatin1(toString(status)));
            continue;
        }
        info << tr("%1: %2 after %3 sweeps, off-norm %4").arg(name, QString::fromLatin1(toString(status))).arg(r.sweeps[index]).arg(number(r.offOrthogonality[index]));
        if (index < r.sweepHistory.size()) {
            LineSeries c{name, {}, {}, true};
            const QVector<double>& h = r.sweepHistory[index];
            for (int s = 0; s < h.size(); ++s) {
                c.x.append(s + 1);
                c.y.append(h[s]);
            }
            convergence.append(c);
        } else {
            // The GPU kernel keeps only the last sweep: one point, not a made-up history.
            convergence.append(LineSeries{name + tr(" (last sweep only)"), {double(r.sweeps[index])}, {r.offOrthogonality[index]}, false});
        }
    }
    m_spectrum->setSeries(spectrum);
    m_convergence->setSeries(convergence);
    m_convergence->setReferenceLine(m_results.isEmpty() ? std::nullopt : std::optional<double>(tolerance), tr("tolerance"));
    m_convergence->setEmptyText(m_results.isEmpty() ? tr("No data yet")
                                                    : tr("No sweep figures for this matrix (cuSOLVER reports none; NaN/Inf input runs none)"));
    m_matrixInfo->setText(m_results.isEmpty() ? tr("Run a batch to see a matrix.") : info.join(QStringLiteral("; ")));
}

} // namespace spyglass::widgets
