#include "hybridspmvview.h"

#include "core/timingtext.h"
#include "gpuchoices.h"
#include "readonlytable.h"

#include "byteformat.h"
#include "hybridspmvrunsmodel.h"
#include "timingchart.h"


#include <QCheckBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

namespace spyglass::widgets {

HybridSpmvView::HybridSpmvView(QWidget* parent) : QWidget(parent) {
    m_useCpu = new QCheckBox(tr("CPU hybrid (reference kernel)"));
    m_useCpu->setChecked(true);
    m_useCuda = new QCheckBox(tr("CUDA hybrid kernel"));
    m_useCusparse = new QCheckBox(tr("cuSPARSE CSR (same matrix)"));
    m_gpuNote = new QLabel;
    awaitDevice(this, {m_useCuda, m_useCusparse}, m_gpuNote, [this](const DeviceInfo& device) { showDevice(device); });
    m_repeats = new QSpinBox;
    m_repeats->setRange(1, 1000);
    m_repeats->setValue(20);
    m_repeats->setToolTip(tr("Timed runs after 3 warm-up runs; the median is shown"));
    m_runButton = new QPushButton(tr("Run SpMV"));
    m_runButton->setEnabled(false);
    m_cancelButton = new QPushButton(tr("Cancel"));
    m_cancelButton->setEnabled(false);
    m_status = new QLabel(tr("Detect the dense regions first: SpMV runs on their encoding."));
    m_status->setWordWrap(true);
    m_breakEven = new QLabel;
    m_breakEven->setObjectName(QStringLiteral("breakEven"));
    m_breakEven->setWordWrap(true);
    m_breakEven->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_breakEven->setToolTip(tr("SpMVs until detection + encoding + upload of the hybrid have paid for themselves against "
                               "cuSPARSE CSR's upload: (preparation - CSR upload) / (CSR SpMV - hybrid SpMV)"));

    auto* backends = new QVBoxLayout;
    backends->addWidget(m_useCpu);
    backends->addWidget(m_useCuda);
    backends->addWidget(m_useCusparse);
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);  // fields as wide as their content, not the panel
    form->addRow(tr("Backends"), backends);
    form->addRow(tr("Timed runs"), m_repeats);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_runButton);
    buttons->addWidget(m_cancelButton);
    buttons->addStretch(1);

    m_runsModel = new HybridSpmvRunsModel(this);
    m_runs = readOnlyTable(m_runsModel, QStringLiteral("spmvRuns"), TableTrait::StretchLastColumn);
    m_runs->setMinimumHeight(110);
    m_times = new TimingChart;
    m_times->setTitle(tr("SpMV time: median of warm runs; upload apart"));
    m_bytes = new TimingChart;
    m_bytes->setTitle(tr("Bytes stored"));
    m_bytes->setQuantity(tr("bytes"));

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_gpuNote);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addWidget(m_breakEven);
    layout->addWidget(m_runs);
    layout->addWidget(m_times, 1);
    layout->addWidget(m_bytes, 1);

    connect(m_runButton, &QPushButton::clicked, this, &HybridSpmvView::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &HybridSpmvView::cancel);
    m_job.onFinished(this, &HybridSpmvView::showResult);
    connect(&m_job, &app::HybridSpmvJob::failed, this, [this](const QString& message) {
        setBusy(false);
        m_status->setText(tr("Failed: %1").arg(message));
        emit failureShown(message);
    });
    connect(&m_job, &app::HybridSpmvJob::cancelled, this, [this] {
        setBusy(false);
        m_status->setText(tr("Cancelled."));
    });
}

void HybridSpmvView::showDevice(const DeviceInfo& device) {
    for (QCheckBox* gpu : {m_useCuda, m_useCusparse})
        gpu->setToolTip(device.present ? QString() : tr("No CUDA device: %1").arg(QString::fromStdString(device.reason)));
    m_gpuNote->setText(device.present
                           ? tr("GPU: %1. Every result is checked against pattern-CSR SpMV on the CPU.").arg(QString::fromStdString(device.name))
                           : tr("No CUDA device (%1): the GPU choices are off; the CPU hybrid kernel still runs and is checked.")
                                 .arg(QString::fromStdString(device.reason)));
}

QCheckBox* HybridSpmvView::box(app::HybridSpmvKernel backend) const {
    switch (backend) {
    case app::HybridSpmvKernel::CpuHybrid: return m_useCpu;
    case app::HybridSpmvKernel::CudaHybrid: return m_useCuda;
    case app::HybridSpmvKernel::CusparseCsr: return m_useCusparse;
    }
    return m_useCpu;
}

void HybridSpmvView::setBackendChecked(app::HybridSpmvKernel backend, bool on) { box(backend)->setChecked(on); }
bool HybridSpmvView::isBackendEnabled(app::HybridSpmvKernel backend) const { return box(backend)->isEnabled(); }
QString HybridSpmvView::statusText() const { return m_status->text(); }
QString HybridSpmvView::breakEvenText() const { return m_breakEven->text(); }

void HybridSpmvView::setPreparation(double detectMs, double encodeMs) {
    m_detectMs = detectMs;
    m_encodeMs = encodeMs;
    showBreakEven();
}

void HybridSpmvView::showBreakEven() {
    if (!hasEncoding() || m_detectMs < 0) {
        m_breakEven->clear();
        return;
    }
    const app::HybridBreakEvenInfo even = app::hybridBreakEven(m_result, m_detectMs, m_encodeMs);
    if (!even.available) {
        m_breakEven->setText(tr("Break-even against cuSPARSE CSR: run the CUDA hybrid kernel and cuSPARSE CSR to see after how "
                                "many SpMVs detection (%1 ms) and encoding (%2 ms) have paid for themselves.")
                                 .arg(m_detectMs, 0, 'f', 1)
                                 .arg(m_encodeMs, 0, 'f', 1));
        return;
    }
    m_breakEven->setText(tr("Break-even against cuSPARSE CSR: <b>%1</b> — (detection %2 + encoding %3 + set-up and upload %4 ms − "
                            "CSR set-up and upload %5 ms) / (CSR SpMV %6 ms − hybrid SpMV %7 ms)")
                             .arg(even.text)
                             .arg(m_detectMs, 0, 'f', 1)
                             .arg(m_encodeMs, 0, 'f', 1)
                             .arg(even.uploadMs, 0, 'f', 2)
                             .arg(even.csrUploadMs, 0, 'f', 2)
                             .arg(even.csrSpmvMs, 0, 'f', 4)
                             .arg(even.spmvMs, 0, 'f', 4));
}

void HybridSpmvView::setEncoding(std::shared_ptr<const HybridValuedMatrix<double>> valued) {
    setEncoding(nullptr, nullptr);
    m_valued = std::move(valued);
    if (m_valued) {
        showBytes(app::hybridBytes(*m_valued));
        m_status->setText(tr("Run SpMV on the valued encoding to time it against cuSPARSE."));
    }
    setBusy(m_job.isRunning());
}

void HybridSpmvView::setEncoding(std::shared_ptr<const HybridValuedMatrix<std::complex<double>>> complexValued) {
    setEncoding(nullptr, nullptr);
    m_complexValued = std::move(complexValued);
    if (m_complexValued) {
        showBytes(app::hybridBytes(*m_complexValued));
        m_status->setText(tr("Run SpMV on the complex (c128) encoding to time it against cuSPARSE's complex CSR."));
    }
    setBusy(m_job.isRunning());
}

void HybridSpmvView::setEncoding(std::shared_ptr<const HybridBinaryMatrix> hybrid, std::shared_ptr<const BinaryPattern> pattern) {
    m_hybrid = std::move(hybrid);
    m_pattern = std::move(pattern);
    m_valued.reset();
    m_complexValued.reset();
    m_result = {};
    m_detectMs = m_encodeMs = -1;
    m_breakEven->clear();
    m_runsModel->clear();
    m_times->clear();
    m_bytes->clear();
    if (m_hybrid && m_pattern) {
        showBytes(app::hybridBytes(*m_hybrid, *m_pattern));
        m_status->setText(tr("Run SpMV on the encoding to time it against cuSPARSE."));
    } else {
        m_status->setText(tr("Detect the dense regions first: SpMV runs on their encoding."));
    }
    setBusy(m_job.isRunning());
}

void HybridSpmvView::setBusy(bool busy) {
    m_runButton->setEnabled(!busy && hasEncoding());
    m_cancelButton->setEnabled(busy);
}

bool HybridSpmvView::run() {
    if (!hasEncoding() || m_job.isRunning()) return false;
    app::HybridSpmvRequest request;
    request.hybrid = m_hybrid;
    request.pattern = m_pattern;
    request.valued = m_valued;
    request.complexValued = m_complexValued;
    request.repeats = m_repeats->value();
    for (auto backend : {app::HybridSpmvKernel::CpuHybrid, app::HybridSpmvKernel::CudaHybrid, app::HybridSpmvKernel::CusparseCsr})
        if (box(backend)->isEnabled() && box(backend)->isChecked()) request.backends << backend;
    if (request.backends.isEmpty()) {
        m_status->setText(tr("Tick at least one backend."));
        return false;
    }
    if (!m_job.start(request)) return false;
    setBusy(true);
    m_status->setText(tr("Running SpMV (%1 warm-up and %2 timed runs per backend)…").arg(request.warmup).arg(request.repeats));
    return true;
}

void HybridSpmvView::cancel() { m_job.cancel(); }

void HybridSpmvView::showResult(const app::HybridSpmvResult& result) {
    m_result = result;
    setBusy(false);
    m_runsModel->setResult(result);
    QVector<QPair<QString, double>> times;
    QStringList problems;
    for (const app::HybridSpmvRun& run : result.runs) {
        if (!run.error.isEmpty()) {
            problems << tr("%1 did not run").arg(run.name);
            continue;
        }
        if (!run.matches) problems << tr("%1 differs from the reference").arg(run.name);
        times << qMakePair(run.name, run.timing.medianMs);
        if (run.timing.uploadMs >= 0) times << qMakePair(tr("%1 upload").arg(run.name), run.timing.uploadMs);
    }
    // The ratio a benchmark prints: the vendor's median over ours, same data, same process.
    const app::HybridSpmvRun* ours = nullptr;
    const app::HybridSpmvRun* vendor = nullptr;
    for (const app::HybridSpmvRun& run : result.runs) {
        if (!run.error.isEmpty()) continue;
        if (run.backend == app::HybridSpmvKernel::CudaHybrid) ours = &run;
        if (run.backend == app::HybridSpmvKernel::CusparseCsr) vendor = &run;
    }
    const QString ratio = ours && vendor ? QStringLiteral(" CUDA hybrid: %1.").arg(app::speedupText(app::speedupOver(vendor->timing, ours->timing)))
                                         : QString();
    m_runs->resizeColumnsToContents();
    showBreakEven();
    m_times->setTimings(times);
    showBytes(result.bytes);
    m_status->setText(problems.isEmpty() ? (result.bytes.valued ? tr("%1 backends ran; every result agrees with the reference within rounding (median of %2 warm runs).")
                                                                : tr("%1 backends ran; every result equals the reference (median of %2 warm runs)."))
                                               .arg(result.runs.size()).arg(result.repeats) + ratio
                                         : problems.join(QStringLiteral("; ")));
    emit resultShown();
}

void HybridSpmvView::showBytes(const app::HybridBytes& b) {
    const double biggest = std::max({b.csr, b.coo, b.cusparseCsr, b.hybrid, qint64(1)});
    const double unit = biggest >= 1e6 ? 1e6 : 1e3;
    const QString unitName = biggest >= 1e6 ? QStringLiteral("MB") : QStringLiteral("kB");
    auto bar = [unit](const QString& name, qint64 bytes) { return qMakePair(name, double(bytes) / unit); };
    if (b.valued) {
        // cuSPARSE multiplies the same CSR: one bar, unless its index widths make it differ.
        const QString type = b.complexValues ? tr("c128") : tr("fp64");
        QVector<QPair<QString, double>> bars = {bar(tr("CSR (%1 values)").arg(type), b.csr), bar(tr("COO (%1 values)").arg(type), b.coo)};
        if (b.cusparseCsr != b.csr) bars << bar(tr("CSR for cuSPARSE (%1)").arg(type), b.cusparseCsr);
        bars << bar(tr("hybrid total"), b.hybrid) << bar(tr("  region headers"), b.regionHeaders)
             << bar(tr("  dense region values"), b.denseValues) << bar(tr("  residual CSR"), b.residual);
        m_bytes->setTimings(bars, unitName);
        m_bytes->setToolTip(tr("Valued hybrid %1 vs CSR %2").arg(formatBytes(double(b.hybrid)), formatBytes(double(b.csr))));
        return;
    }
    m_bytes->setTimings({bar(tr("CSR (pattern)"), b.csr), bar(tr("COO (pattern)"), b.coo), bar(tr("CSR for cuSPARSE (fp64)"), b.cusparseCsr),
                         bar(tr("hybrid total"), b.hybrid), bar(tr("  region headers"), b.regionHeaders),
                         bar(tr("  zero row pointers"), b.zeroRowPointers), bar(tr("  zeros stored"), b.zeroOffsets),
                         bar(tr("  residual CSR"), b.residual)},
                        unitName);
    m_bytes->setToolTip(tr("Hybrid %1 vs pattern CSR %2").arg(formatBytes(double(b.hybrid)), formatBytes(double(b.csr))));
}

} // namespace spyglass::widgets
