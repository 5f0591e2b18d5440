#include "hybridpanel.h"

#include "core/hybridexport.h"
#include "byteformat.h"
#include "maincontext.h"
#include "samplehint.h"
#include "spyoverlay.h"
#include "spyview.h"

#include "spyglass/container.h"

#include <QAction>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace spyglass::widgets {

namespace {
QColor shapeColor(const QString& shape) {
    if (shape == QLatin1String("rectangle")) return QColor(220, 60, 40);
    if (shape == QLatin1String("triangle")) return QColor(40, 150, 60);
    return QColor(150, 60, 200);
}

SpyOverlay toOverlay(const app::RegionInfo& region) {
    SpyOverlay overlay;
    overlay.cells = QRectF(region.colBegin, region.rowBegin, region.colEnd - region.colBegin, region.rowEnd - region.rowBegin);
    overlay.color = shapeColor(region.shape);
    overlay.label = region.shape;
    if (region.shape == QLatin1String("triangle")) {
        // Anti-diagonal triangles have no overlay shape of their own: their bounding box is drawn.
        if (region.corner == QLatin1String("lower-left")) overlay.shape = SpyOverlay::LowerTriangle;
        else if (region.corner == QLatin1String("upper-right")) overlay.shape = SpyOverlay::UpperTriangle;
        else overlay.shape = SpyOverlay::Rectangle;
        overlay.label += QLatin1Char(' ') + region.corner;
    } else if (region.shape == QLatin1String("band")) {
        overlay.shape = SpyOverlay::Band;
        overlay.bandWidth = region.bandWidth;
        overlay.label += QStringLiteral(" w=%1").arg(region.bandWidth);
    }
    return overlay;
}

} // namespace

HybridPanel::HybridPanel(MainContext& context, QWidget* parent) : QWidget(parent), m_context(context) {
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
                                          "their zeros, any real matrix by their values densely; the rest stays CSR."));
    m_status = new QLabel(tr("Detect the dense regions of the open matrix."));
    m_status->setWordWrap(true);
    m_summary = new QLabel;
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout;
    form->addRow(tr("Cells per pixel"), m_cellsPerPixel);
    form->addRow(tr("Minimum fill"), m_minFill);
    form->addRow(tr("Pixel threshold"), m_pixelThreshold);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_detectButton);
    buttons->addWidget(m_cancelButton);
    buttons->addWidget(m_exportButton);
    auto* controls = new QWidget;
    auto* controlLayout = new QVBoxLayout(controls);
    controlLayout->addWidget(m_hint);
    controlLayout->addLayout(form);
    controlLayout->addLayout(buttons);
    controlLayout->addWidget(m_status);
    controlLayout->addWidget(m_summary, 1);

    m_regions = new QTableWidget(0, 7);
    m_regions->setHorizontalHeaderLabels({tr("Shape"), tr("Rows"), tr("Columns"), tr("Band"), tr("Fill"), tr("Zeros stored"), tr("Cells")});
    m_regions->horizontalHeader()->setStretchLastSection(true);
    m_regions->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_regions->setSelectionBehavior(QAbstractItemView::SelectRows);

    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(controls);
    splitter->addWidget(m_regions);
    splitter->setStretchFactor(1, 3);
    (new QVBoxLayout(this))->addWidget(splitter);

    m_exportAction = new QAction(tr("Export hybrid encoding…"), this);
    m_exportAction->setEnabled(false);
    if (QMenu* tools = m_context.toolsMenu()) {
        tools->addAction(m_exportAction);
        tools->menuAction()->setVisible(true);
    }

    connect(m_detectButton, &QPushButton::clicked, this, &HybridPanel::detect);
    connect(m_cancelButton, &QPushButton::clicked, &m_job, &app::RegionDetectionJob::cancel);
    connect(m_exportButton, &QPushButton::clicked, this, &HybridPanel::chooseAndExport);
    connect(m_exportAction, &QAction::triggered, this, &HybridPanel::chooseAndExport);
    connect(&m_job, &app::RegionDetectionJob::finished, this, &HybridPanel::showResult);
    connect(&m_job, &app::RegionDetectionJob::failed, this, &HybridPanel::showFailure);
    connect(&m_job, &app::RegionDetectionJob::cancelled, this, [this] {
        setBusy(false);
        m_status->setText(tr("Cancelled."));
    });
    connect(&m_context, &MainContext::documentChanged, this, [this] { clearResult(); });
    connect(&m_export, &QFutureWatcher<QString>::finished, this, &HybridPanel::exportDone);
    clearResult();
}

HybridPanel::~HybridPanel() { m_export.waitForFinished(); }

QString HybridPanel::statusText() const { return m_status->text(); }

void HybridPanel::setBusy(bool busy) {
    // An export cannot be cancelled half-way (the file is renamed into place whole), so Cancel
    // stays with detection; everything else waits for both.
    const bool exporting = m_exporting;
    m_detectButton->setEnabled(!busy && !exporting);
    m_cancelButton->setEnabled(busy);
    m_exportButton->setEnabled(!busy && !exporting && m_result.hasEncoding());
    m_exportAction->setEnabled(!busy && !exporting && m_result.hasEncoding());
}

void HybridPanel::detect() {
    const app::MatrixDocument& document = m_context.document();
    if (document.isEmpty()) {
        m_status->setText(tr("Open a matrix first."));
        return;
    }
    if (document.stats().field == Field::Complex) {
        m_status->setText(tr("This matrix is complex: the hybrid encoding stores real values or a binary pattern."));
        return;
    }
    app::RegionDetectionRequest request;
    request.matrix = document.matrix();
    request.cellsPerPixel = m_cellsPerPixel->value();
    request.minFill = m_minFill->value();
    request.pixelThreshold = m_pixelThreshold->value();
    if (!m_job.start(request)) return;
    setBusy(true);
    m_status->setText(tr("Detecting dense regions…"));
}

void HybridPanel::clearResult() {
    m_result = {};
    m_regions->setRowCount(0);
    m_summary->clear();
    setBusy(m_job.isRunning());
    const app::MatrixDocument& document = m_context.document();
    m_hint->show();
    if (document.isEmpty()) {
        m_hint->offer(QStringLiteral("blocks"), tr("No matrix is open."));
        m_status->setText(tr("Open a matrix, or the sample below."));
    } else if (document.stats().field == Field::Complex) {
        m_hint->offer(QStringLiteral("valued"), tr("This matrix is complex: the hybrid encoding stores real values or a "
                                                   "binary pattern."));
        m_status->setText(tr("The hybrid encoding needs a real or binary matrix."));
    } else {
        m_hint->clearOffer();
        m_status->setText(document.stats().binary ? tr("Detect the dense regions of this binary matrix (stored by their zeros).")
                                                  : tr("Detect the dense regions of this matrix (stored with their values)."));
    }
}

void HybridPanel::showFailure(const QString& message) {
    setBusy(false);
    m_status->setText(tr("Failed: %1").arg(message));
}

void HybridPanel::showResult(const app::RegionDetectionResult& result) {
    m_result = result;
    setBusy(false);
    // A run that found nothing to keep teaches where the method does work; otherwise the intro goes.
    if (result.regions.isEmpty() || result.csrFallback) {
        m_hint->offer(QStringLiteral("blocks"), result.regions.isEmpty()
                                                    ? tr("No dense region was found in this matrix.")
                                                    : tr("The regions found do not pay for themselves here."));
    } else {
        m_hint->hide();
    }
    QList<SpyOverlay> overlays;
    m_regions->setRowCount(result.regions.size());
    for (int i = 0; i < result.regions.size(); ++i) {
        const app::RegionInfo& r = result.regions[i];
        overlays << toOverlay(r);
        auto* shape = new QTableWidgetItem(r.corner.isEmpty() ? r.shape : r.shape + QLatin1Char(' ') + r.corner);
        shape->setForeground(shapeColor(r.shape));
        m_regions->setItem(i, 0, shape);
        m_regions->setItem(i, 1, new QTableWidgetItem(QStringLiteral("%1–%2").arg(r.rowBegin + 1).arg(r.rowEnd)));
        m_regions->setItem(i, 2, new QTableWidgetItem(QStringLiteral("%1–%2").arg(r.colBegin + 1).arg(r.colEnd)));
        m_regions->setItem(i, 3, new QTableWidgetItem(r.shape == QLatin1String("band") ? QStringLiteral("width %1").arg(r.bandWidth) : QString()));
        m_regions->setItem(i, 4, new QTableWidgetItem(QStringLiteral("%1 %").arg(100.0 * r.fill, 0, 'f', 1)));
        m_regions->setItem(i, 5, new QTableWidgetItem(QString::number(r.zeros)));
        m_regions->setItem(i, 6, new QTableWidgetItem(QString::number(qint64(r.rowEnd - r.rowBegin) * (r.colEnd - r.colBegin))));
    }
    if (m_context.spyView()) m_context.spyView()->setOverlays(overlays);
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
                          .arg(result.valued ? tr("values stored densely") : tr("zeros stored"));
    if (result.csrFallback) summary += tr("\nFell back to plain CSR: %1").arg(result.fallbackReason);
    m_summary->setText(summary);
    m_status->setText(result.summary());
    m_context.showStatusMessage(result.summary());
    emit resultShown();
}

void HybridPanel::chooseAndExport() {
    if (!m_result.hasEncoding()) return;
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
    if (!m_result.hasEncoding() || m_job.isRunning() || m_exporting) return false;
    m_exporting = true;
    m_exportPath = path;
    m_status->setText(tr("Exporting to %1…").arg(path));
    // The worker keeps its own reference: clearing or replacing the result meanwhile is safe.
    const app::RegionDetectionResult result = m_result;
    m_export.setFuture(QtConcurrent::run([result, write = std::move(write)]() -> QString {
        try {
            write(result);
            return {};
        } catch (const std::bad_alloc&) {
            return tr("out of memory");
        } catch (const std::exception& error) {
            return QString::fromStdString(error.what());
        }
    }));
    setBusy(false);
    return true;
}

void HybridPanel::exportDone() {
    const QString error = m_export.result();
    m_exporting = false;
    setBusy(m_job.isRunning());
    if (error.isEmpty()) {
        m_status->setText(tr("Exported %1").arg(m_exportPath));
        m_context.showStatusMessage(tr("Exported %1").arg(m_exportPath));
        emit exportFinished(m_exportPath);
        return;
    }
    const QString message = tr("Export to %1 failed: %2").arg(m_exportPath, error);
    m_status->setText(message);
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Export failed"), message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    emit exportFailed(m_exportPath, message);
}

bool HybridPanel::exportContainer(const QString& path) {
    const std::string note = "Spyglass export of " + QFileInfo(m_context.document().path()).fileName().toStdString();
    return startExport(path, [target = path.toStdString(), note](const app::RegionDetectionResult& result) {
        if (result.valued) writeHybridValuedContainer(target, *result.valued, result.field, note);
        else writeHybridContainer(target, *result.hybrid, note);
    });
}

bool HybridPanel::exportRegionsJson(const QString& path) {
    return startExport(path, [path, source = m_context.document().path()](const app::RegionDetectionResult& result) {
        if (result.valued) app::writeHybridRegionsJson(path, *result.valued, source);
        else app::writeHybridRegionsJson(path, *result.hybrid, source);
    });
}

bool HybridPanel::exportResidual(const QString& path) {
    return startExport(path, [path](const app::RegionDetectionResult& result) {
        if (result.valued) app::writeHybridResidualMatrixMarket(path, *result.valued);
        else app::writeHybridResidualMatrixMarket(path, *result.hybrid);
    });
}

} // namespace spyglass::widgets
