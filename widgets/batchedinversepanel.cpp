// Batch-inverse panel: form -> BatchedInverseJob requests (one per checked backend) -> charts.
#include "batchedinversepanel.h"

#include "core/deviceinfocache.h"
#include "core/inversekernels.h"

#include "batchpanelform.h"
#include "histogramchart.h"
#include "measurementtablemodel.h"
#include "readonlytable.h"
#include "timingchart.h"
#include "timingoptionsbox.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace spyglass::widgets {

BatchedInversePanel::BatchedInversePanel(QWidget* parent) : BatchRunPanel(parent), m_job(new app::BatchedInverseSweepJob(this)) {
    m_order = new QSpinBox;
    m_order->setObjectName(QStringLiteral("order"));
    m_order->setRange(1, 256);  // the GPU backends stop at 32; the request says so if asked for more
    m_order->setValue(8);
    // 10^5 matrices: enough work that the GPU's time, not the launch, is what is measured (the LTE
    // slot of 1,200 is one of the inputs; its kernel lasts a few microseconds).
    m_batch = batchform::batchSpinBox(100000);
    m_batch->setToolTip(tr("10^5 by default: the GPU's work then dominates launch overhead, so the times compare methods"));
    m_precision = batchform::precisionComboBox(int(app::InversePrecision::F32), int(app::InversePrecision::F64),
                                               int(app::InversePrecision::C64), int(app::InversePrecision::C128));
    m_input = new QComboBox;
    m_input->setObjectName(QStringLiteral("input"));
    m_input->addItem(QStringLiteral("Random entries in [-1, 1]"), 0);
    m_input->addItem(QStringLiteral("LTE channel: H^H H + sigma^2 I"), 1);
    m_input->addItem(QStringLiteral("Ill-conditioned (chosen condition)"), 2);
    m_input->addItem(QStringLiteral("Stacked matrices from a file"), 3);
    m_snr = new QDoubleSpinBox;
    m_snr->setRange(-20, 60);
    m_snr->setValue(10);
    m_snr->setSuffix(QStringLiteral(" dB"));
    m_condition = new QLineEdit(QStringLiteral("1e4"));
    m_file = new QLineEdit;
    m_file->setPlaceholderText(QStringLiteral("Matrix Market array, rows = B*N, cols = N"));
    m_browse = new QPushButton(tr("Browse..."));
    m_seed = new QSpinBox;
    m_seed->setRange(0, 1 << 30);
    m_seed->setValue(1);
    m_timingOptions = new TimingOptionsBox;

    auto* form = batchform::fieldForm({{tr("Order N"), m_order},
                                       {tr("Batch"), m_batch},
                                       {tr("Precision"), m_precision},
                                       {tr("Input"), m_input},
                                       {tr("SNR"), m_snr},
                                       {tr("Condition"), m_condition},
                                       {tr("File"), batchform::stackedFileRow(this, m_file, m_browse)},
                                       {tr("Seed"), m_seed},
                                       {tr("Timing"), m_timingOptions}});

    m_useCpu = batchform::cpuReferenceBox();
    m_useCuda = new QCheckBox(tr("Spyglass CUDA kernel"));
    m_kernel = new QComboBox;
    for (InverseKernel kernel : app::inverseKernelChoices(InverseBackend::Cuda))
        m_kernel->addItem(QString::fromLatin1(toString(kernel)), int(kernel));
    m_useCublas = new QCheckBox(tr("cuBLAS getrf + getri"));
    // Off until the device query (on a worker thread) says what there is.
    for (QWidget* w : {static_cast<QWidget*>(m_useCuda), static_cast<QWidget*>(m_kernel), static_cast<QWidget*>(m_useCublas)}) {
        w->setEnabled(false);
        w->setToolTip(tr("Checking for a GPU…"));
    }
    app::DeviceInfoCache::shared().whenReady(this, [this](const DeviceInfo& device) {
        const bool gpu = device.present;
        for (QWidget* w : {static_cast<QWidget*>(m_useCuda), static_cast<QWidget*>(m_kernel), static_cast<QWidget*>(m_useCublas)}) {
            w->setEnabled(gpu);
            w->setToolTip(gpu ? QString() : tr("No GPU: %1").arg(QString::fromStdString(device.reason)));
        }
        m_useCuda->setChecked(gpu);
        m_useCublas->setChecked(gpu);
    });
    auto* backends = batchform::backendsBox(m_useCpu, m_useCuda, m_kernel, {m_useCublas});

    m_runButton = new QPushButton(tr("Invert"));
    m_cancelButton = new QPushButton(tr("Cancel"));
    auto* buttons = batchform::runCancelRow(m_runButton, m_cancelButton);

    m_result = new QLabel(tr("No run yet. Inverts a batch of tiny matrices it generates by full-pivot Gauss-Jordan on the GPU, beside cuBLAS and the CPU reference: no open matrix needed."));
    m_result->setObjectName(QStringLiteral("result"));
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_singular = new QListWidget;
    m_singular->setObjectName(QStringLiteral("singular"));
    m_measurements = new MeasurementTableModel(this);
    QTableView* measurements = measurementTable(m_measurements);

    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->addLayout(form);
    leftLayout->addWidget(backends);
    leftLayout->addLayout(buttons);
    leftLayout->addWidget(m_progress);
    leftLayout->addWidget(m_result);
    leftLayout->addWidget(new QLabel(tr("Singular or non-finite matrices (index: info)")));
    leftLayout->addWidget(m_singular, 1);

    m_timing = new TimingChart;
    m_timing->setTitle(tr("Compute time per backend (median of the timed runs)"));
    m_residuals = new HistogramChart;
    m_residuals->setTitle(tr("Residual ||AX - I|| / (||A|| ||X|| eps), last run"));
    m_residuals->setLog10(true);
    // The timing table heads the right column, in view beside the form (the form scrolls, it does not).
    auto* charts = new QSplitter(Qt::Vertical);
    charts->addWidget(measurements);
    charts->addWidget(m_timing);
    charts->addWidget(m_residuals);
    batchform::formBesideResults(this, left, charts);

    connect(m_input, &QComboBox::currentIndexChanged, this, &BatchedInversePanel::updateInputControls);
    connect(m_runButton, &QPushButton::clicked, this, &BatchedInversePanel::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &BatchedInversePanel::cancel);
    m_job->onFinished(this, &BatchedInversePanel::onFinished);
    watchJob(m_job);
    updateInputControls();
}

BatchedInversePanel::~BatchedInversePanel() = default;

QString BatchedInversePanel::resultText() const { return m_result->text(); }

void BatchedInversePanel::updateInputControls() {
    const int input = m_input->currentData().toInt();
    m_snr->setEnabled(input == 1);
    m_condition->setEnabled(input == 2);
    m_file->setEnabled(input == 3);
    m_browse->setEnabled(input == 3);
    m_order->setEnabled(input != 3);  // a file brings its own order and batch
    m_batch->setEnabled(input != 3);
}

app::BatchedInverseRequest BatchedInversePanel::requestFor(InverseBackend backend) const {
    app::BatchedInverseRequest request;
    request.n = m_order->value();
    request.batch = m_batch->value();
    request.precision = static_cast<app::InversePrecision>(m_precision->currentData().toInt());
    const int input = m_input->currentData().toInt();
    request.kind = input == 1 ? BatchKind::LteChannel : input == 2 ? BatchKind::IllConditioned : BatchKind::Random;
    request.snrDb = m_snr->value();
    bool ok = false;
    const double condition = m_condition->text().toDouble(&ok);
    request.condition = ok ? condition : 0.0;  // 0 is refused by the generator with a clear message
    if (input == 3) request.inputFile = m_file->text();
    request.seed = static_cast<quint64>(m_seed->value());
    request.backend = backend;
    if (backend == InverseBackend::Cuda) request.kernel = static_cast<InverseKernel>(m_kernel->currentData().toInt());
    if (backend == InverseBackend::Cublas) request.kernel = InverseKernel::CublasGetrfGetri;
    request.timing = m_timingOptions->options();
    return request;
}

void BatchedInversePanel::run() {
    if (isRunning()) return;
    app::BackendSweepRequest<app::BatchedInverseRequest> sweep;
    sweep.name = [](const app::BatchedInverseRequest& request) { return QString::fromLatin1(toString(request.backend)); };
    if (m_useCpu->isChecked()) sweep.runs << requestFor(InverseBackend::Reference);
    if (m_useCuda->isEnabled() && m_useCuda->isChecked()) sweep.runs << requestFor(InverseBackend::Cuda);
    if (m_useCublas->isEnabled() && m_useCublas->isChecked()) sweep.runs << requestFor(InverseBackend::Cublas);
    if (sweep.runs.isEmpty()) {
        m_result->setText(tr("Choose at least one backend."));
        emit allRunsFinished();
        return;
    }
    m_times.clear();
    m_lines.clear();
    m_timing->clear();
    m_measurements->clear();
    m_singular->clear();
    m_result->setText(tr("Running..."));
    setRunning(true);
    m_job->start(sweep);
}

void BatchedInversePanel::onFinished(const app::BatchedInverseSweep& sweep) {
    for (const auto& run : sweep.runs) {
        if (run.result) showRun(*run.result);
        else addFailureLine(run.error);
    }
    if (sweep.cancelled) m_lines << tr("Cancelled.");
    showLines();
    finishRuns();
}

void BatchedInversePanel::showRun(const app::BatchedInverseResult& result) {
    const QString name = result.backend == QLatin1String("cpu") ? tr("CPU reference") : result.backend + " " + result.kernel;
    m_times.append({name, result.timing.medianMs});
    m_measurements->addMeasurement({name, result.timing, result.bytesMoved, result.backend == QLatin1String("cublas"), {}});
    m_timing->setTimings(m_times, QStringLiteral("ms"));
    m_residuals->setValues(result.residuals, 40, tr("residual"));  // the chart adds the log10()
    m_singular->clear();
    for (int f = 0; f < result.failedIndices.size(); ++f)
        m_singular->addItem(QStringLiteral("%1: %2").arg(result.failedIndices[f]).arg(
            result.failedCodes[f] == kInverseNonFiniteInput ? tr("NaN/Inf input") : tr("pivot %1").arg(result.failedCodes[f])));
    m_lines << result.summary();
}

void BatchedInversePanel::addFailureLine(const QString& message) { m_lines << tr("Failed: %1").arg(message); }

void BatchedInversePanel::showLines() { m_result->setText(m_lines.join(QLatin1Char('\n'))); }

} // namespace spyglass::widgets
