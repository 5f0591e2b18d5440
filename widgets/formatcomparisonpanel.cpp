#include "formatcomparisonpanel.h"

#include "columnfitter.h"
#include "formatcomparisonmodel.h"
#include "core/deviceinfocache.h"
#include "maincontext.h"
#include "timingchart.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSizePolicy>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace spyglass::widgets {

namespace {
// Labels that wrap instead of widening the window.
QLabel* wrappingLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    return label;
}
} // namespace

FormatComparisonPanel::FormatComparisonPanel(MainContext& context, QWidget* parent)
    : QWidget(parent), m_context(context), m_model(new FormatComparisonModel(this)) {
    m_precision = new QComboBox(this);
    m_precision->addItem(tr("fp32"), true);
    m_precision->addItem(tr("fp64"), false);
    m_precision->setObjectName(QStringLiteral("precision"));
    // fp64 first, as every other tab stores the values: the same matrix then shows the same bytes
    // here as in the Segmented DIA, Bit-flag and Dense regions tabs (fp32 halves the value arrays).
    m_precision->setCurrentIndex(1);
    m_x = new QComboBox(this);
    m_x->addItem(tr("x random"), true);
    m_x->addItem(tr("x all ones"), false);
    m_useGpu = new QCheckBox(tr("Use the GPU"), this);
    m_useGpu->setObjectName(QStringLiteral("useGpu"));
    // Off until the device query (on a worker thread) says there is a GPU, as in every other tab.
    m_useGpu->setChecked(false);
    m_useGpu->setEnabled(false);
    m_useGpu->setToolTip(tr("Checking for a GPU…"));
    app::DeviceInfoCache::shared().whenReady(this, [this](const DeviceInfo& device) {
        m_gpuPresent = device.present;
        m_useGpu->setChecked(device.present);
        m_useGpu->setEnabled(device.present);
        m_useGpu->setToolTip(device.present ? tr("Unticked, every format runs on the CPU reference")
                                            : tr("No GPU: %1. Every format runs on the CPU reference.").arg(QString::fromStdString(device.reason)));
    });
    m_compareButton = new QPushButton(tr("Compare formats"), this);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 100);
    m_progress->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_precision);
    controls->addWidget(m_x);
    controls->addWidget(m_useGpu);
    controls->addWidget(m_compareButton);
    controls->addWidget(m_cancelButton);
    controls->addWidget(m_progress, 1);

    m_status = wrappingLabel(this);
    m_recommendation = wrappingLabel(this);
    QFont bold = m_recommendation->font();
    bold.setBold(true);
    m_recommendation->setFont(bold);

    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Expanding);
    m_table->setToolTip(tr("Double-click a row to open that format's own tab"));
    ColumnFitter::install(m_table);

    m_times = new TimingChart(this);
    m_times->setTitle(tr("SpMV median (warm runs)"));
    m_bytes = new TimingChart(this);
    m_bytes->setTitle(tr("Bytes of the format"));
    m_bytes->setQuantity(tr("bytes"));
    auto* charts = new QSplitter(Qt::Horizontal, this);
    charts->addWidget(m_times);
    charts->addWidget(m_bytes);
    auto* body = new QSplitter(Qt::Vertical, this);
    body->addWidget(m_table);
    body->addWidget(charts);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_status);
    layout->addWidget(m_recommendation);
    layout->addWidget(body, 1);

    connect(m_compareButton, &QPushButton::clicked, this, &FormatComparisonPanel::compare);
    connect(m_cancelButton, &QPushButton::clicked, this, &FormatComparisonPanel::cancel);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (index.isValid()) emit openFormatRequested(m_model->formatAt(index.row()));
    });
    connect(&m_job, &app::FormatComparisonJob::progress, this, [this](int percent, const QString& step) {
        m_progress->setValue(percent);
        m_status->setText(tr("Running: %1").arg(step));
    });
    m_job.onFinished(this, &FormatComparisonPanel::showComparison);
    connect(&m_job, &app::FormatComparisonJob::failed, this, [this](const QString& message) {
        setBusy(false);
        m_status->setText(tr("Comparison failed: %1").arg(message));
        emit comparisonFailed(message);
    });
    connect(&m_job, &app::FormatComparisonJob::cancelled, this, [this] {
        setBusy(false);
        m_status->setText(tr("Cancelled"));
    });
    connect(&m_context, &MainContext::documentChanged, this, [this] {
        m_job.cancel();
        reset();
    });
    reset();
    setBusy(false);
}

QString FormatComparisonPanel::statusText() const { return m_status->text(); }
QString FormatComparisonPanel::recommendationText() const { return m_recommendation->text(); }

bool FormatComparisonPanel::compare() {
    if (m_job.isRunning() || !m_context.document().matrix()) return false;
    app::FormatComparisonRequest request;
    request.matrix = m_context.document().matrix();
    request.singlePrecision = m_precision->currentData().toBool();
    request.randomX = m_x->currentData().toBool();
    request.useGpu = m_useGpu->isChecked();
    if (!m_job.start(request)) return false;
    reset();
    setBusy(true);
    m_status->setText(tr("Running…"));
    return true;
}

void FormatComparisonPanel::cancel() { m_job.cancel(); }

void FormatComparisonPanel::reset() {
    m_model->clear();
    m_times->clear();
    m_bytes->clear();
    m_recommendation->clear();
    m_progress->setValue(0);
    m_status->setText(m_context.document().matrix() ? tr("Compare every SpMV format on this matrix.") : tr("Open a matrix to compare formats."));
    // A complex matrix is compared in complex values of the chosen precision: the choice says which.
    const auto matrix = m_context.document().matrix();
    const bool complexValues = matrix && matrix->isComplex();
    m_precision->setItemText(0, complexValues ? tr("c64") : tr("fp32"));
    m_precision->setItemText(1, complexValues ? tr("c128") : tr("fp64"));
}

void FormatComparisonPanel::setBusy(bool busy) {
    m_compareButton->setEnabled(!busy);
    m_cancelButton->setEnabled(busy);
    m_precision->setEnabled(!busy);
    m_x->setEnabled(!busy);
    m_useGpu->setEnabled(!busy && m_gpuPresent);
}

void FormatComparisonPanel::showComparison(const FormatComparison& c) {
    setBusy(false);
    m_progress->setValue(100);
    m_model->setComparison(c);
    QVector<QPair<QString, double>> times, bytes;
    for (const FormatRow& row : c.results) {
        if (!row.applicable) continue;
        const QString name = QString::fromStdString(row.name);
        times.append({name, row.spmv.medianMs});
        bytes.append({name, double(row.bytes) / 1e6});
    }
    m_times->setTimings(times, QStringLiteral("ms"));
    m_bytes->setTimings(bytes, QStringLiteral("MB"));
    m_bytes->setTitle(c.results.empty() ? tr("Bytes of the format")
                                        : tr("Bytes of the format (%1 values)").arg(m_precision->currentText()));
    int ran = 0;
    for (const FormatRow& row : c.results) ran += row.applicable ? 1 : 0;
    m_status->setText(tr("%1 x %2, %3 nonzeros, %4: %5 of %6 formats ran on %7; copy bandwidth %8 GB/s")
                          .arg(c.rows)
                          .arg(c.cols)
                          .arg(c.nonzeros)
                          .arg(QString::fromStdString(c.precision))
                          .arg(ran)
                          .arg(c.results.size())
                          .arg(c.onGpu ? tr("the GPU (%1)").arg(QString::fromStdString(c.device)) : QString::fromStdString(c.device))
                          .arg(c.copyBandwidthGBs, 0, 'f', 1));
    m_recommendation->setText(tr("Recommendation: %1").arg(QString::fromStdString(c.pickReason)));
    emit comparisonShown();
}

} // namespace spyglass::widgets
