#include "segdiapanel.h"
#include "readonlytable.h"

#include "byteformat.h"
#include "core/deviceinfocache.h"
#include "core/timingtext.h"
#include "maincontext.h"
#include "samplehint.h"
#include "segdiaarraysmodel.h"
#include "segdiasegmentsmodel.h"
#include "spyoverlay.h"
#include "spyview.h"
#include "measurementtablemodel.h"
#include "timingchart.h"
#include "timingoptionsbox.h"


#include <QAction>
#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace spyglass::widgets {

namespace {
// More rows than this would make the tables slow to fill and useless to scroll; say so instead.
constexpr int kMaxTableRows = SegDiaSegmentsModel::kMaxRows;
constexpr int kMaxBands = 4000;

QColor blockColor(int block) { return SegDiaSegmentsModel::blockColor(block); }

} // namespace

SegmentedDiaPanel::SegmentedDiaPanel(MainContext& context, QWidget* parent) : QWidget(parent), m_context(context) {
    m_threshold = new QSpinBox;
    m_threshold->setRange(0, 1 << 24);
    m_threshold->setSpecialValueText(tr("Auto (fewest bytes)"));  // 0: the builder tries 1024, 512, 256 rows
    m_threshold->setValue(0);
    m_threshold->setToolTip(tr("Rows per segment (the method's fixed threshold). Auto: of 1024, 512 and 256 rows, the "
                               "length that moves the fewest bytes; the layout below says which it chose"));
    m_merge = new QCheckBox(tr("Merge segments for load balance"));
    m_merge->setChecked(true);
    m_merge->setToolTip(tr("Unticked gives HDIA: equal row groups, one thread block each"));
    m_useCpu = new QCheckBox(tr("CPU reference"));
    m_useCpu->setChecked(true);
    m_useCuda = new QCheckBox(tr("CUDA segmented DIA"));
    m_useCusparse = new QCheckBox(tr("cuSPARSE CSR"));
    // Off until the device query (on a worker thread) says what there is.
    for (QCheckBox* gpu : {m_useCuda, m_useCusparse}) {
        gpu->setChecked(false);
        gpu->setEnabled(false);
        gpu->setToolTip(tr("Checking for a GPU…"));
    }
    app::DeviceInfoCache::shared().whenReady(this, [this](const DeviceInfo& device) {
        for (QCheckBox* gpu : {m_useCuda, m_useCusparse}) {
            gpu->setChecked(device.present);
            gpu->setEnabled(device.present);
            gpu->setToolTip(device.present ? QString() : QString::fromStdString(device.reason));
        }
    });
    m_buildButton = new QPushButton(tr("Build layout"));
    m_spmvButton = new QPushButton(tr("Run SpMV"));
    m_cancelButton = new QPushButton(tr("Cancel"));
    m_cancelButton->setEnabled(false);
    m_exportButton = new QPushButton(tr("Export…"));
    m_exportButton->setToolTip(tr("Write the built layout as a Spyglass segmented-DIA container (docs/container-format.md)"));
    m_exportButton->setEnabled(false);
    m_status = new QLabel(tr("Open a matrix and build its segmented DIA layout."));
    m_status->setObjectName(QStringLiteral("segdiaStatus"));
    m_status->setWordWrap(true);
    m_statsLabel = new QLabel;
    m_statsLabel->setObjectName(QStringLiteral("segdiaStats"));
    m_statsLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_statsLabel->setWordWrap(true);  // long lines wrap: the panel never widens the window
    m_statsLabel->setAlignment(Qt::AlignTop | Qt::AlignLeft);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);  // fields as wide as their content, not the panel
    form->addRow(tr("Segment height"), m_threshold);
    form->addRow(m_merge);
    m_timingOptions = new TimingOptionsBox;
    form->addRow(tr("SpMV timing"), m_timingOptions);
    auto* backends = new QGroupBox(tr("SpMV backends"));
    auto* backendLayout = new QVBoxLayout(backends);
    backendLayout->addWidget(m_useCpu);
    backendLayout->addWidget(m_useCuda);
    backendLayout->addWidget(m_useCusparse);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_buildButton);
    buttons->addWidget(m_spmvButton);
    buttons->addWidget(m_cancelButton);
    buttons->addWidget(m_exportButton);
    auto* controls = new QWidget;
    auto* controlLayout = new QVBoxLayout(controls);
    m_hint = new SampleHint(m_context, tr("Stores the matrix by its diagonals in row segments, merging segments that "
                                          "share diagonals, and runs SpMV on it beside plain DIA, HDIA and cuSPARSE CSR."));
    controlLayout->addWidget(m_hint);
    controlLayout->addLayout(form);
    controlLayout->addWidget(backends);
    controlLayout->addLayout(buttons);
    controlLayout->addWidget(m_status);
    controlLayout->addWidget(m_statsLabel, 1);

    m_segmentsModel = new SegDiaSegmentsModel(this);
    m_segments = readOnlyTable(m_segmentsModel, QString(), TableTrait::StretchLastColumn | TableTrait::SelectOneRow);
    m_mergeSteps = new QListWidget;
    m_arraysModel = new SegDiaArraysModel(this);
    m_arrays = readOnlyTable(m_arraysModel, QStringLiteral("segmentArrays"), {});
    m_arraysCaption = new QLabel(tr("Select a segment to see its arrays."));
    m_arraysCaption->setWordWrap(true);
    m_timings = new TimingChart;
    m_timings->setTitle(tr("SpMV time (median of the timed runs; upload apart)"));
    m_timings->setMinimumHeight(180);
    m_measurements = new MeasurementTableModel(this);

    auto* segmentsBox = new QGroupBox(tr("Segments (row bands on the picture)"));
    (new QVBoxLayout(segmentsBox))->addWidget(m_segments);
    auto* mergeBox = new QGroupBox(tr("Merge steps"));
    (new QVBoxLayout(mergeBox))->addWidget(m_mergeSteps);
    // A short title (a group box never elides it, so a long one sets the panel's minimum width).
    auto* arraysBox = new QGroupBox(tr("Selected segment's arrays"));
    arraysBox->setToolTip(tr("Offsets and values, diagonal-major; grey = padding"));
    auto* arraysLayout = new QVBoxLayout(arraysBox);
    arraysLayout->addWidget(m_arraysCaption);
    arraysLayout->addWidget(m_arrays);

    // The layout above, the run's timings below across the whole width: with the picture beside the
    // tabs, a third column was too narrow for the timing table's eight columns.
    auto* middle = new QSplitter(Qt::Vertical);
    middle->addWidget(segmentsBox);
    middle->addWidget(mergeBox);
    auto* layoutRow = new QSplitter(Qt::Horizontal);
    layoutRow->addWidget(controls);
    layoutRow->addWidget(middle);
    layoutRow->addWidget(arraysBox);
    layoutRow->setStretchFactor(1, 2);
    layoutRow->setStretchFactor(2, 2);
    auto* results = new QSplitter(Qt::Horizontal);
    results->addWidget(measurementTable(m_measurements));
    results->addWidget(m_timings);
    results->setStretchFactor(0, 3);
    results->setStretchFactor(1, 2);
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(layoutRow);
    splitter->addWidget(results);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    (new QVBoxLayout(this))->addWidget(splitter);

    m_exportAction = m_context.addToolsAction(tr("Export segmented DIA container…"), this);

    connect(m_buildButton, &QPushButton::clicked, this, &SegmentedDiaPanel::build);
    connect(m_spmvButton, &QPushButton::clicked, this, &SegmentedDiaPanel::runSpmv);
    connect(m_cancelButton, &QPushButton::clicked, &m_job, &app::SegmentedDiaJob::cancel);
    connect(m_cancelButton, &QPushButton::clicked, &m_exportJob, &app::ExportJob::cancel);
    connect(m_exportButton, &QPushButton::clicked, this, &SegmentedDiaPanel::chooseAndExport);
    connect(m_exportAction, &QAction::triggered, this, &SegmentedDiaPanel::chooseAndExport);
    m_exportJob.onFinished(this, [this](const QString& summary) {
        const QString& path = m_exportJob.path();
        setBusy(false);
        m_status->setText(tr("Exported %1").arg(summary));
        m_context.showStatusMessage(tr("Exported %1").arg(path));
        emit exportFinished(path, summary);
    });
    connect(&m_exportJob, &app::ExportJob::failed, this, [this](const QString& message) {
        showExportFailure(tr("Export to %1 failed: %2").arg(m_exportJob.path(), message));
    });
    connect(&m_exportJob, &app::ExportJob::cancelled, this, [this] {
        setBusy(false);
        m_status->setText(tr("Export cancelled; no file written."));
    });
    m_job.onFinished(this, &SegmentedDiaPanel::showLayout);
    connect(&m_job, &app::SegmentedDiaJob::failed, this, &SegmentedDiaPanel::showFailure);
    connect(&m_job, &app::SegmentedDiaJob::cancelled, this, [this] {
        setBusy(false);
        m_status->setText(tr("Cancelled."));
    });
    onRowSelected(m_segments, this, [this](int row) {
        showSegment(row);
        // With one band per segment the selected one is highlighted on the picture and brought into view.
        if (m_layout.format && m_layout.format->segments() <= kMaxBands) m_context.highlightRowBand(this, row);
    });
    connect(&m_context, &MainContext::documentChanged, this, [this] { clearLayout(); });
    updateHint();
}

QString SegmentedDiaPanel::statusText() const { return m_status->text(); }

void SegmentedDiaPanel::build() { start(false); }
void SegmentedDiaPanel::runSpmv() { start(true); }

void SegmentedDiaPanel::start(bool withSpmv) {
    const std::shared_ptr<const Matrix> matrix = m_context.matrixOrAsk(m_status);
    if (!matrix) return;
    app::SegmentedDiaRequest request;
    request.matrix = matrix;
    request.threshold = m_threshold->value();
    request.merge = m_merge->isChecked();
    request.timing = m_timingOptions->options();
    if (withSpmv) {
        if (m_useCpu->isChecked()) request.spmvBackends << SpmvBackend::Reference;
        if (m_useCuda->isChecked() && m_useCuda->isEnabled()) request.spmvBackends << SpmvBackend::Cuda;
        if (m_useCusparse->isChecked() && m_useCusparse->isEnabled()) request.spmvBackends << SpmvBackend::Cusparse;
        if (request.spmvBackends.isEmpty()) {
            m_status->setText(tr("Tick at least one SpMV backend."));
            return;
        }
    }
    if (!m_job.start(request)) return;
    setBusy(true);
    m_status->setText(withSpmv ? tr("Building and running SpMV…") : tr("Building the layout…"));
}

void SegmentedDiaPanel::setBusy(bool busy) {
    m_buildButton->setEnabled(!busy);
    m_spmvButton->setEnabled(!busy);
    m_cancelButton->setEnabled(busy);
    // A complex layout has no container (it holds real values): the button says so instead.
    const bool canExport = !busy && m_layout.format != nullptr && !m_layout.isComplex();
    m_exportButton->setEnabled(canExport);
    m_exportAction->setEnabled(canExport);
    m_exportButton->setToolTip(m_layout.isComplex() ? tr("The segmented-DIA container holds real, integer or pattern values; this matrix is complex")
                                                    : tr("Write the built layout as a Spyglass segmented-DIA container (docs/container-format.md)"));
}

void SegmentedDiaPanel::chooseAndExport() {
    if (!m_layout.format) return;
    const QString base = QFileInfo(m_context.document().path()).completeBaseName().section(QLatin1Char('.'), 0, 0);
    const QString path = QFileDialog::getSaveFileName(this, tr("Export segmented DIA container"), base + QStringLiteral("-segdia.spy"),
                                                      tr("Spyglass container (*.spy);;All files (*)"));
    if (!path.isEmpty()) exportContainer(path);
}

bool SegmentedDiaPanel::exportContainer(const QString& path) {
    if (!m_layout.format || m_job.isRunning() || m_exportJob.isRunning()) return false;
    const app::MatrixDocument& document = m_context.document();
    if (document.isEmpty()) return false;
    // The format and the matrix are shared and immutable: the worker reads them while the GUI goes on.
    std::shared_ptr<const SegmentedDiaMatrix<double>> format = m_layout.format;
    std::shared_ptr<const Matrix> matrix = document.matrix();
    const std::string source = document.path().toStdString();
    const std::string note = "Spyglass export of " + document.fileName().toStdString();
    const bool started = m_exportJob.start(path, [format, matrix, source, note, path](const std::atomic<bool>* cancel) {
        return app::writeSegmentedDiaExport(*format, app::segmentedDiaFieldFor(*matrix, *format, source), path, note, cancel)
            .describe(path);
    });
    if (!started) return false;
    setBusy(true);
    m_status->setText(tr("Exporting to %1…").arg(path));
    return true;
}

void SegmentedDiaPanel::showExportFailure(const QString& message) {
    setBusy(false);
    m_status->setText(message);
    // Non-modal: the panel stays usable behind the message.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Export failed"), message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    emit exportFailed(message);
}

void SegmentedDiaPanel::clearLayout() {
    m_layout = {};
    setBusy(m_job.isRunning() || m_exportJob.isRunning());
    m_segmentsModel->clear();
    m_mergeSteps->clear();
    m_arraysModel->clear();
    showSegment(-1);
    m_statsLabel->clear();
    m_measurements->clear();
    m_timings->setTimings({}, tr("ms"));
    m_status->setText(tr("Build the segmented DIA layout of this matrix."));
    updateHint();
}

void SegmentedDiaPanel::updateHint() {
    // Banded enough: the entries lie on at most as many diagonals as the matrix has rows (a stencil has
    // a handful; a scattered matrix nearly all rows + cols - 1 of them).
    const app::MatrixDocument& document = m_context.document();
    m_hint->show();
    if (document.isEmpty())
        m_hint->offer(QStringLiteral("stencil"), tr("No matrix is open."));
    else if (document.stats().diagonals > std::max<Count>(1, std::max(document.stats().rows, document.stats().cols)))
        m_hint->offer(QStringLiteral("stencil"), tr("This matrix is not banded (%1 diagonals hold entries): most of it would "
                                                    "go to the CSR remainder.").arg(document.stats().diagonals));
    else
        m_hint->clearOffer();
}

void SegmentedDiaPanel::showFailure(const QString& message) {
    setBusy(false);
    m_status->setText(tr("Failed: %1").arg(message));
}

void SegmentedDiaPanel::showLayout(const app::SegmentedDiaLayout& layout) {
    m_layout = layout;
    setBusy(false);
    m_hint->hide();
    const SegmentedDiaMatrix<double>& format = *layout.format;
    const SegmentedDiaStats& s = layout.stats;
    m_statsLabel->setText(tr("Segments: %1 → blocks after merging: %2\n"
                             "Nonzeros: %3, stored slots: %4\n"
                             "Padding ratio (slots / DIA nonzeros): %5\n"
                             "CSR remainder: %12 nonzeros in %13 segment(s), %14%17\n"
                             "Work per block: max %6, min %7\n"
                             "Diagonals: max %8 in one segment, %9 summed over the segments\n"
                             "Bytes: %10 (CSR %15: %11)%16")
                              .arg(s.segments)
                              .arg(s.blocks)
                              .arg(s.nonzeros)
                              .arg(s.storedSlots)
                              .arg(s.paddingRatio, 0, 'f', 3)
                              .arg(s.maxBlockWork)
                              .arg(s.minBlockWork)
                              .arg(s.maxSegmentDiagonals)
                              .arg(s.totalDiagonals)
                              .arg(formatBytes(double(s.bytes)))
                              .arg(formatBytes(double(layout.csrBytes)))
                              .arg(s.remainderNonzeros)
                              .arg(s.remainderSegments)
                              .arg(formatBytes(double(s.remainderBytes)))
                              .arg(layout.isComplex() ? tr("c128") : tr("fp64"))
                              .arg(layout.isComplex() ? tr("\nValues: complex (c128), multiplied on the CPU reference; the arrays "
                                                           "table shows each value's modulus")
                                                      : QString())
                              .arg(s.remainderNonzeros == 0 ? QString()
                                   : s.remainderOwnPass     ? tr(", summed on a GPU in a pass of its own")
                                                            : tr(", summed on a GPU by each row's thread")));

    m_segmentsModel->setLayout(layout);
    const int shown = m_segmentsModel->rowCount();
    m_mergeSteps->clear();
    if (layout.mergeSteps.isEmpty())
        m_mergeSteps->addItem(m_merge->isChecked() ? tr("No merge needed: every block is within twice the work of another.")
                                                   : tr("Merging off (HDIA)."));
    const int stepsShown = std::min<int>(layout.mergeSteps.size(), kMaxTableRows);
    for (int i = 0; i < stepsShown; ++i) m_mergeSteps->addItem(QStringLiteral("%1. %2").arg(i + 1).arg(layout.mergeSteps[i]));
    if (layout.mergeSteps.size() > stepsShown)
        m_mergeSteps->addItem(tr("… %1 more steps").arg(layout.mergeSteps.size() - stepsShown));

    // Row bands: one per segment, coloured by merged block; when there are too many to tell apart,
    // one per block run.
    QList<RowBand> bands;
    for (Index seg = 0; seg < format.segments(); ++seg) {
        const int block = layout.segmentBlock.value(seg);
        if (format.segments() > kMaxBands && !bands.isEmpty() && bands.back().label == QStringLiteral("block %1").arg(block)) {
            bands.back().rowEnd = format.segmentFirstRow[seg + 1];
            continue;
        }
        RowBand band;
        band.rowBegin = format.segmentFirstRow[seg];
        band.rowEnd = format.segmentFirstRow[seg + 1];
        band.color = blockColor(block);
        band.label = format.segments() > kMaxBands ? QStringLiteral("block %1").arg(block)
                                                   : QStringLiteral("seg %1 · %2 diag · block %3").arg(seg).arg(format.segmentDiagonals(seg)).arg(block);
        bands << band;
    }
    m_context.setRowBands(this, bands);

    QVector<QPair<QString, double>> times;
    QStringList checks;
    std::vector<MeasuredRow> measured;
    for (const app::SpmvRun& run : layout.spmv) {
        if (!run.error.isEmpty()) {
            checks << tr("%1: %2").arg(run.name, run.error);
            measured.push_back({run.name, {}, 0, false, run.error});
            continue;
        }
        times << qMakePair(run.name, run.timing.medianMs);
        measured.push_back({run.name, run.timing, run.bytesMoved, run.backend == SpmvBackend::Cusparse, {}});
        checks << tr("%1: %2, max relative difference from the CPU reference %3")
                      .arg(run.name, app::timingText(run.timing))
                      .arg(run.maxRelativeError, 0, 'g', 3);
    }
    m_measurements->setMeasurements(std::move(measured));
    m_timings->setTimings(times, tr("ms"));
    const QString segmentRows = m_threshold->value() == 0 ? tr("%1 rows, chosen").arg(m_layout.format->threshold)
                                                           : tr("%1 rows").arg(m_layout.format->threshold);
    checks.prepend(tr("Layout built: %1 segments (%2) in %3 blocks.").arg(s.segments).arg(segmentRows).arg(s.blocks));
    m_status->setText(checks.join(QLatin1Char('\n')));
    // The first segment's arrays, without selecting it: a selection highlights and zooms the picture
    // to its band, and the whole matrix must stay in view until the user picks a segment.
    if (shown > 0) showSegment(0);
    emit layoutShown();
}

void SegmentedDiaPanel::showSegment(int segment) {
    m_arraysModel->setSegment(m_layout.format, segment);
    if (!m_layout.format || segment < 0 || segment >= m_layout.format->segments()) {
        // No segment (none chosen yet, or another matrix opened): no caption of an old one.
        m_arraysCaption->setText(tr("Select a segment to see its arrays."));
        return;
    }
    const SegmentedDiaMatrix<double>& format = *m_layout.format;
    const Index rows = format.segmentRows(segment), diagonals = format.segmentDiagonals(segment);
    const Index first = format.segmentFirstRow[segment];
    const bool cut = rows > m_arraysModel->rowCount() || diagonals > m_arraysModel->columnCount();
    m_arraysCaption->setText(tr("Segment %1: rows %2–%3, %4 diagonals, %6 remainder nonzeros (CSR, not shown); "
                                "columns are offsets (col − row)%5%7")
                                 .arg(segment)
                                 .arg(first + 1)
                                 .arg(first + rows)
                                 .arg(diagonals)
                                 .arg(cut ? tr(", first part shown") : QString())
                                 .arg(format.segmentRemainderCount(segment))
                                 .arg(m_layout.isComplex() ? tr("; complex values shown by their modulus") : QString()));
}

} // namespace spyglass::widgets
