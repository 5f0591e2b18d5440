#include "hybridpanel.h"
#include "readonlytable.h"

#include "core/hybridexport.h"
#include "byteformat.h"
#include "hybridcomponentsmodel.h"
#include "hybriddetectionlayers.h"
#include "hybridregionsmodel.h"
#include "hybridspmvview.h"
#include "maincontext.h"
#include "samplehint.h"
#include "spyoverlay.h"
#include "spyview.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace spyglass::widgets {

namespace {
constexpr int kMaxComponentRows = HybridComponentsModel::kMaxRows;  // rows of the components table and boxes drawn

QColor shapeColor(RegionShape shape) {
    switch (shape) {
    case RegionShape::Rectangle: return QColor(220, 60, 40);
    case RegionShape::Triangle: return QColor(40, 150, 60);
    case RegionShape::Band: break;
    }
    return QColor(150, 60, 200);
}

// The overlay is the region itself (by value): the picture draws exactly what the encoding keeps.
SpyOverlay toOverlay(const app::HybridRegion& kept) {
    const DenseRegion& region = kept.region;
    SpyOverlay overlay;
    overlay.region = region;
    overlay.color = shapeColor(region.shape);
    overlay.label = app::denseRegionName(region);
    QString band;
    if (region.shape == RegionShape::Band) {
        overlay.label += QStringLiteral(" w=%1").arg(region.bandWidth());
        band = QObject::tr("<br>offsets %1 to %2 (width %3)").arg(region.bandLow).arg(region.bandHigh).arg(region.bandWidth());
    }
    overlay.details = QObject::tr("<b>%1</b><br>rows %2–%3, columns %4–%5%6<br>%7 cells in the shape, fill %8 %<br>zeros stored: %9")
                          .arg(app::denseRegionName(region))
                          .arg(region.rowBegin + 1).arg(region.rowEnd)
                          .arg(region.colBegin + 1).arg(region.colEnd)
                          .arg(band)
                          .arg(static_cast<qint64>(region.cells()))
                          .arg(100.0 * region.fill(), 0, 'f', 1)
                          .arg(kept.zeros);
    return overlay;
}

} // namespace

HybridPanel::HybridPanel(MainContext& context, QWidget* parent)
    : QWidget(parent), m_context(context) {
    m_export.onFinished(this, [this](const QString&) { exportDone(true, {}); });
    connect(&m_export, &app::ExportJob::failed, this, [this](const QString& error) { exportDone(false, error); });
    connect(&m_export, &app::ExportJob::cancelled, this, [this] { setBusy(m_job.isRunning()); });
    m_cellsPerPixel = new QSpinBox;
    m_cellsPerPixel->setRange(0, 1 << 20);
    m_cellsPerPixel->setSpecialValueText(tr("automatic"));
    m_cellsPerPixel->setToolTip(tr("Matrix cells per thumbnail pixel along each side (automatic: at most 2048 pixels)"));
    m_minFill = new QDoubleSpinBox;
    m_minFill->setRange(0.01, 0.999);
    m_minFill->setSingleStep(0.05);
    m_minFill->setValue(0.5);
    m_minFill->setToolTip(tr("A region is kept as a dense block when more than this fraction of its cells are nonzero"));
    m_pixelThreshold = new QDoubleSpinBox;
    m_pixelThreshold->setRange(0.001, 1.0);
    m_pixelThreshold->setSingleStep(0.05);
    m_pixelThreshold->setValue(0.3);
    m_pixelThreshold->setToolTip(tr("A thumbnail pixel is set when at least this fraction of its cells are nonzero"));
    m_detectButton = new QPushButton(tr("Detect dense regions"));
    m_cancelButton = new QPushButton(tr("Cancel"));
    m_cancelButton->setEnabled(false);
    m_exportButton = new QPushButton(tr("Export…"));
    m_exportButton->setEnabled(false);
    m_hint = new SampleHint(m_context, tr("Finds dense regions (rectangles, triangles, bands) in the matrix's pattern and "
                                          "stores them apart from the sparse rest: a binary matrix by the positions of "
                                          "their zeros, any other matrix (real or complex) by their values densely; the rest stays CSR."));
    m_status = new QLabel(tr("Detect the dense regions of the open matrix."));
    m_status->setWordWrap(true);
    m_summary = new QLabel;
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_summary->setWordWrap(true);  // the panel sits beside the picture: long lines wrap, never widen it
    m_live = new QCheckBox(tr("Re-detect as the parameters change"));
    m_live->setChecked(true);
    m_live->setToolTip(tr("After the first detection, changing a parameter re-runs it in the background "
                          "(a run still going is cancelled), so the picture follows the parameters"));
    m_layer = new QComboBox;
    m_layer->setObjectName(QStringLiteral("detectionLayer"));
    m_layer->addItem(tr("Matrix with the regions"), int(DetectionLayer::Regions));
    m_layer->addItem(tr("Detection thumbnail (density per pixel)"), int(DetectionLayer::Density));
    m_layer->addItem(tr("Binary mask (pixels at or over the threshold)"), int(DetectionLayer::Mask));
    m_layer->addItem(tr("Connected components (kept / dropped)"), int(DetectionLayer::Components));
    m_layer->setToolTip(tr("What the picture shows: the matrix, or what the detector saw at thumbnail resolution"));
    m_retune.setSingleShot(true);
    // One run for a burst of spin-box steps. Short: a run still going is cancelled when the next
    // starts, and a re-detection of a 10^7-entry matrix takes a few hundred ms on two cores.
    m_retune.setInterval(50);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);  // fields as wide as their content, not the panel
    form->addRow(tr("Cells per pixel"), m_cellsPerPixel);
    form->addRow(tr("Minimum fill"), m_minFill);
    form->addRow(tr("Pixel threshold"), m_pixelThreshold);
    form->addRow(QString(), m_live);
    form->addRow(tr("Picture"), m_layer);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_detectButton);
    buttons->addWidget(m_cancelButton);
    buttons->addWidget(m_exportButton);
    buttons->addStretch(1);

    m_regionsModel = new HybridRegionsModel(this);
    m_regions = readOnlyTable(m_regionsModel, QStringLiteral("regions"), TableTrait::StretchLastColumn | TableTrait::SelectOneRow);
    auto* regionsPage = new QWidget;
    auto* regionsLayout = new QVBoxLayout(regionsPage);
    regionsLayout->addWidget(m_summary);
    regionsLayout->addWidget(m_regions, 1);

    m_componentsModel = new HybridComponentsModel(this);
    // Sortable by any column (numbers as numbers), kept first by default, and "too small" rejects
    // (thousands of one-pixel components on a real matrix) can be hidden.
    m_componentsProxy = new QSortFilterProxyModel(this);
    m_componentsProxy->setSourceModel(m_componentsModel);
    m_componentsProxy->setSortRole(HybridComponentsModel::SortRole);
    m_componentsProxy->setFilterKeyColumn(HybridComponentsModel::Verdict);
    m_components = readOnlyTable(m_componentsProxy, QStringLiteral("components"),
                                 TableTrait::StretchLastColumn | TableTrait::SelectOneRow);
    m_components->horizontalHeader()->setSortIndicator(HybridComponentsModel::Verdict, Qt::AscendingOrder);
    m_components->setSortingEnabled(true);
    m_hideTooSmall = new QCheckBox(tr("Hide too small"));
    m_hideTooSmall->setObjectName(QStringLiteral("hideTooSmall"));
    connect(m_hideTooSmall, &QCheckBox::toggled, this, [this](bool hide) {
        m_componentsProxy->setFilterFixedString(QString());
        m_componentsProxy->setFilterRegularExpression(hide ? QStringLiteral("^(?!%1$)").arg(QLatin1String(toString(ComponentVerdict::TooSmall)))
                                                           : QString());
    });
    auto* detectionPage = new QWidget;
    auto* detectionLayout = new QVBoxLayout(detectionPage);
    detectionLayout->setContentsMargins(0, 0, 0, 0);
    detectionLayout->addWidget(m_hideTooSmall);
    detectionLayout->addWidget(m_components, 1);

    m_spmv = new HybridSpmvView;
    m_pages = new QTabWidget;
    m_pages->setUsesScrollButtons(true);
    m_pages->addTab(regionsPage, tr("Regions"));
    m_pages->addTab(detectionPage, tr("Detection"));
    m_pages->addTab(m_spmv, tr("SpMV on the GPU"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_hint);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addWidget(m_pages, 1);

    m_exportAction = m_context.addToolsAction(tr("Export hybrid encoding…"), this);

    connect(m_detectButton, &QPushButton::clicked, this, &HybridPanel::detect);
    connect(m_cancelButton, &QPushButton::clicked, this, &HybridPanel::cancelDetection);
    connect(m_exportButton, &QPushButton::clicked, this, &HybridPanel::chooseAndExport);
    connect(m_exportAction, &QAction::triggered, this, &HybridPanel::chooseAndExport);
    m_job.onFinished(this, &HybridPanel::showResult);
    connect(&m_job, &app::HybridDetectionJob::failed, this, &HybridPanel::showFailure);
    connect(&m_job, &app::HybridDetectionJob::cancelled, this, [this] {
        setBusy(false);
        m_status->setText(tr("Cancelled."));
        startPendingRun();
    });
    connect(m_cellsPerPixel, &QSpinBox::valueChanged, this, &HybridPanel::parametersChanged);
    connect(m_minFill, &QDoubleSpinBox::valueChanged, this, &HybridPanel::parametersChanged);
    connect(m_pixelThreshold, &QDoubleSpinBox::valueChanged, this, &HybridPanel::parametersChanged);
    connect(&m_retune, &QTimer::timeout, this, [this] {
        // A run still going used the old parameters: cancel it; its end starts the new one.
        m_rerunPending = true;
        if (m_job.isRunning()) m_job.cancel();
        else startPendingRun();
    });
    connect(m_layer, &QComboBox::currentIndexChanged, this, [this] { applyLayer(); });
    onRowSelected(m_components, this, [this](int viewRow) {
        if (viewRow < 0) return;
        const int row = m_componentsProxy->mapToSource(m_componentsProxy->index(viewRow, 0)).row();  // = its overlay
        setLayer(DetectionLayer::Components);
        m_context.highlightOverlay(this, row);
    });
    connect(&m_context, &MainContext::documentChanged, this, [this] { clearResult(); });
    // The region selected in the table is highlighted on the picture and brought into view.
    onRowSelected(m_regions, this, [this](int row) {
        if (row < 0) return;
        if (layer() == DetectionLayer::Components) setLayer(DetectionLayer::Regions);
        m_context.highlightOverlay(this, row);
    });
    clearResult();
}

QString HybridPanel::statusText() const { return m_status->text(); }

DetectionLayer HybridPanel::layer() const { return static_cast<DetectionLayer>(m_layer->currentData().toInt()); }

void HybridPanel::setLayer(DetectionLayer layer) { m_layer->setCurrentIndex(m_layer->findData(int(layer))); }

void HybridPanel::setParameters(int cellsPerPixel, double minFill, double pixelThreshold) {
    m_cellsPerPixel->setValue(cellsPerPixel);
    m_minFill->setValue(minFill);
    m_pixelThreshold->setValue(pixelThreshold);
}

void HybridPanel::parametersChanged() {
    if (m_live->isChecked() && m_detectedOnce) m_retune.start();
}

bool HybridPanel::startPendingRun() {
    if (!m_rerunPending || m_job.isRunning()) return false;
    m_rerunPending = false;
    detect();
    return m_job.isRunning();
}

void HybridPanel::applyLayer() {
    const DetectionLayer shown = layer();
    const DetectionPicture* picture = m_result.picture.get();
    if (shown == DetectionLayer::Regions || !picture) {
        m_context.setBackdrop(this, {}, {});
        m_context.setOverlays(this, m_regionOverlays);
        return;
    }
    const QImage image = shown == DetectionLayer::Density ? detectionDensityImage(*picture)
                         : shown == DetectionLayer::Mask  ? detectionMaskImage(*picture)
                                                          : detectionComponentsImage(*picture);
    m_context.setBackdrop(this, image, detectionCells(*picture));
    m_context.setOverlays(this, shown == DetectionLayer::Components ? componentOverlays(*picture, kMaxComponentRows) : m_regionOverlays);
}

void HybridPanel::showComponents() { m_componentsModel->setPicture(m_result.picture); }

void HybridPanel::setBusy(bool busy) {
    // An export cannot be cancelled half-way (the file is renamed into place whole), so Cancel
    // stays with detection; everything else waits for both.
    const bool exporting = m_export.isRunning();
    m_detectButton->setEnabled(!busy && !exporting);
    m_cancelButton->setEnabled(busy);
    // A complex encoding has no container (it holds real values or a pattern): SpMV only.
    m_exportButton->setEnabled(!busy && !exporting && m_result.canExport());
    m_exportAction->setEnabled(!busy && !exporting && m_result.canExport());
    m_exportButton->setToolTip(m_result.complexValued ? tr("The hybrid container holds real values or a binary pattern; this matrix is complex")
                                                      : QString());
}

void HybridPanel::detect() {
    const std::shared_ptr<const Matrix> matrix = m_context.matrixOrAsk(m_status);
    if (!matrix) return;
    app::HybridDetectionRequest request;
    request.matrix = matrix;
    request.cellsPerPixel = m_cellsPerPixel->value();
    request.minFill = m_minFill->value();
    request.pixelThreshold = m_pixelThreshold->value();
    if (m_result.pattern && m_resultMatrix && m_resultMatrix == matrix) {
        request.pattern = m_result.pattern;
        request.csr = m_result.csr;
    }
    if (!m_job.start(request)) return;
    m_runMatrix = request.matrix;
    setBusy(true);
    m_status->setText(tr("Detecting dense regions…"));
}

void HybridPanel::cancelDetection() {
    m_rerunPending = false;  // a cancel is not a parameter change: nothing re-runs after it
    m_job.cancel();
}

void HybridPanel::clearResult() {
    m_result = {};
    m_resultMatrix.reset();
    m_runMatrix.reset();
    m_detectedOnce = false;
    m_rerunPending = false;
    m_retune.stop();
    m_regionsModel->clear();
    m_componentsModel->clear();
    m_regionOverlays.clear();
    m_summary->clear();
    m_spmv->setEncoding(nullptr, nullptr);
    setBusy(m_job.isRunning());
    const app::MatrixDocument& document = m_context.document();
    m_hint->show();
    if (document.isEmpty()) {
        m_hint->offer(QStringLiteral("blocks"), tr("No matrix is open."));
        m_status->setText(tr("Open a matrix, or the sample below."));
    } else {
        m_hint->clearOffer();
        m_status->setText(document.stats().field == Field::Complex
                              ? tr("Detect the dense regions of this complex matrix (stored with their values, c128; SpMV on the CPU "
                                   "reference, no container export).")
                          : document.stats().binary ? tr("Detect the dense regions of this binary matrix (stored by their zeros).")
                                                    : tr("Detect the dense regions of this matrix (stored with their values)."));
    }
}

void HybridPanel::showFailure(const QString& message) {
    setBusy(false);
    if (startPendingRun()) return;
    m_status->setText(tr("Failed: %1").arg(message));
}

void HybridPanel::showResult(const app::HybridDetectionResult& result) {
    if (m_rerunPending) {
        setBusy(false);
        if (startPendingRun()) return;  // computed with parameters that have changed since
    }
    // A run for a matrix that has since been closed (its result is not this document's).
    if (!m_runMatrix || m_runMatrix != m_context.document().matrix()) {
        setBusy(false);
        return;
    }
    m_result = result;
    m_resultMatrix = m_runMatrix;
    m_detectedOnce = true;
    setBusy(false);
    if (result.valued)
        m_spmv->setEncoding(result.valued);
    else if (result.complexValued)
        m_spmv->setEncoding(result.complexValued);
    else
        m_spmv->setEncoding(result.hybrid, result.pattern);
    m_spmv->setPreparation(result.detectMs, result.encodeMs);
    // A run that found nothing to keep teaches where the method does work; otherwise the intro goes.
    if (result.regions.isEmpty() || result.csrFallback) {
        m_hint->offer(QStringLiteral("blocks"), result.regions.isEmpty()
                                                    ? tr("No dense region was found in this matrix.")
                                                    : tr("The regions found do not pay for themselves here."));
    } else {
        m_hint->hide();
    }
    QList<SpyOverlay> overlays;
    for (const app::HybridRegion& r : result.regions) overlays << toOverlay(r);
    m_regionsModel->setRegions(result.regions, overlays);
    m_regionOverlays = overlays;
    showComponents();
    applyLayer();
    const double ratio = result.hybridBytes > 0 ? double(result.csrBytes) / double(result.hybridBytes) : 0.0;
    QString summary = tr("Regions kept: %1 (of %2 components in a %3×%4 thumbnail, %5 cells per pixel)\n"
                         "Hybrid encoding (%11): %6; CSR: %7 (%8× smaller)\n"
                         "Detection %9 ms, encoding %10 ms")
                          .arg(result.regions.size())
                          .arg(result.components)
                          .arg(result.thumbnailWidth)
                          .arg(result.thumbnailHeight)
                          .arg(result.cellsPerPixel)
                          .arg(formatBytes(double(result.hybridBytes)))
                          .arg(formatBytes(double(result.csrBytes)))
                          .arg(ratio, 0, 'f', 2)
                          .arg(result.detectMs, 0, 'f', 1)
                          .arg(result.encodeMs, 0, 'f', 1)
                          .arg(result.complexValued ? tr("complex values (c128) stored densely")
                               : result.valued      ? tr("values stored densely")
                                                    : tr("zeros stored"));
    if (result.csrFallback) summary += tr("\nFell back to plain CSR: %1").arg(result.fallbackReason);
    m_summary->setText(summary);
    m_status->setText(result.summary());
    m_context.showStatusMessage(result.summary());
    emit resultShown();
}

void HybridPanel::chooseAndExport() {
    if (!m_result.canExport()) return;
    const QString base = QFileInfo(m_context.document().path()).completeBaseName().section(QLatin1Char('.'), 0, 0);
    const QString container = tr("Spyglass container (*.spy)"), json = tr("Regions as JSON (*.json)"),
                  residual = tr("Residual as Matrix Market (*.mtx)");
    QString filter = container;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export hybrid encoding"), base + QStringLiteral(".spy"),
                                                      QStringList{container, json, residual}.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty()) return;
    if (filter == json) exportRegionsJson(path);
    else if (filter == residual) exportResidual(path);
    else exportContainer(path);
}

bool HybridPanel::startExport(const QString& path, Writer write) {
    if (!m_result.hasEncoding() || m_job.isRunning()) return false;
    // The worker keeps its own reference: clearing or replacing the result meanwhile is safe. A file
    // is renamed into place whole and read back, or not written.
    auto work = [result = m_result, write = std::move(write), path](const std::atomic<bool>* cancel) {
        write(result, cancel);
        return path;
    };
    if (!m_export.start(path, work)) return false;  // another export is running
    m_status->setText(tr("Exporting to %1…").arg(path));
    setBusy(false);
    return true;
}

void HybridPanel::exportDone(bool written, const QString& error) {
    setBusy(m_job.isRunning());
    if (written) {
        m_status->setText(tr("Exported %1").arg(m_export.path()));
        m_context.showStatusMessage(tr("Exported %1").arg(m_export.path()));
        emit exportFinished(m_export.path());
        return;
    }
    const QString message = tr("Export to %1 failed: %2").arg(m_export.path(), error);
    m_status->setText(message);
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Export failed"), message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    emit exportFailed(m_export.path(), message);
}

bool HybridPanel::exportContainer(const QString& path) {
    const std::string note = "Spyglass export of " + QFileInfo(m_context.document().path()).fileName().toStdString();
    return startExport(path, [path, note](const app::HybridDetectionResult& result, const std::atomic<bool>* cancel) {
        app::writeHybridContainerExport(path, result, note, cancel);
    });
}

bool HybridPanel::exportRegionsJson(const QString& path) {
    return startExport(path, [path, source = m_context.document().path()](const app::HybridDetectionResult& result,
                                                                          const std::atomic<bool>*) {
        app::writeHybridRegionsJson(path, result, source);
    });
}

bool HybridPanel::exportResidual(const QString& path) {
    return startExport(path, [path](const app::HybridDetectionResult& result, const std::atomic<bool>*) {
        app::writeHybridResidualMatrixMarket(path, result);
    });
}

} // namespace spyglass::widgets
