#include "bitflagpanel.h"

#include "core/bitflagestimate.h"
#include "core/bitflaglookup.h"
#include "bitflagbytesmodel.h"
#include "bitflagchoicesmodel.h"
#include "bitflagrunsmodel.h"
#include "bitflagstripview.h"
#include "bitflagvaluesmodel.h"
#include "gpuchoices.h"
#include "readonlytable.h"
#include "byteformat.h"
#include "maincontext.h"
#include "samplehint.h"
#include "timingchart.h"


#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

namespace spyglass::widgets {

namespace {
// The panel's tables: read-only, whole rows, no row numbers, rows of 20 pixels.
QTableView* makeTable(QAbstractItemModel* model, const QString& objectName) {
    QTableView* table = readOnlyTable(model, objectName,
                                      TableTrait::StretchLastColumn | TableTrait::SelectOneRow | TableTrait::NoRowNumbers);
    table->verticalHeader()->setDefaultSectionSize(20);
    return table;
}

// The bytes and choices tables: a name column taking the spare width, two figure columns sized to
// their figures, nothing to select, and as tall as their `rows` rows so that neither scrolls.
QTableView* makeFigureTable(QAbstractItemModel* model, const QString& objectName, int rows) {
    QTableView* table = makeTable(model, objectName);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(false);
    table->setFixedHeight(rows * 20 + 28);
    return table;
}

} // namespace

BitFlagPanel::BitFlagPanel(MainContext& context, QWidget* parent) : QWidget(parent), m_context(context) {
    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(buildControls());
    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(buildLineView());
    right->addWidget(buildOperations());
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    (new QVBoxLayout(this))->addWidget(splitter);

    connect(&m_job, &app::BitFlagJob::progress, this, [this](int value, const QString& stage) {
        m_progress->setValue(value);
        m_progress->setFormat(QStringLiteral("%1 — %p%").arg(stage));
    });
    connect(&m_job, &app::BitFlagJob::layoutFinished, this, &BitFlagPanel::showLayout);
    connect(&m_job, &app::BitFlagJob::operationFinished, this, &BitFlagPanel::showResult);
    connect(&m_job, &app::BitFlagJob::failed, this, &BitFlagPanel::showFailure);
    connect(&m_job, &app::BitFlagJob::cancelled, this, [this] {
        setBusy(false, {});
        m_status->setText(tr("Cancelled."));
        if (m_encodePending) requestEncode();
    });
    connect(&m_context, &MainContext::documentChanged, this, [this] {
        clearAll();
        m_stale = true;
        // Work on the previous matrix is of no use any more; its result is dropped when it arrives.
        if (m_job.isRunning()) m_job.cancel();
        if (isVisible()) requestEncode();
    });
    clearAll();
}

QWidget* BitFlagPanel::buildControls() {
    m_order = new QComboBox;
    m_order->addItem(tr("Row-major (lines are rows)"));
    m_order->addItem(tr("Column-major (lines are columns)"));
    m_prefix = new QCheckBox(tr("Per-word prefix counts (O(1) access)"));
    m_prefix->setToolTip(tr("Stores, per flag word, the number of set bits of the line before it: a lookup "
                            "then reads one prefix count instead of popcounting every earlier word."));
    m_encodeButton = new QPushButton(tr("Encode"));
    m_cancelButton = new QPushButton(tr("Cancel"));
    m_cancelButton->setEnabled(false);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 100);
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_progress->setFormat(QString());
    m_status = new QLabel(tr("Open a matrix to see its bit-flag form."));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* encodeBox = new QGroupBox(tr("Bit-flag form"));
    auto* encodeLayout = new QVBoxLayout(encodeBox);
    encodeLayout->addWidget(m_order);
    encodeLayout->addWidget(m_prefix);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_encodeButton);
    buttons->addWidget(m_cancelButton);
    encodeLayout->addLayout(buttons);

    m_bytesModel = new BitFlagBytesModel(this);
    m_bytes = makeFigureTable(m_bytesModel, QStringLiteral("bitFlagBytes"), 6);
    m_bytesSummary = new QLabel;
    m_bytesSummary->setWordWrap(true);
    m_choicesModel = new BitFlagChoicesModel(this);
    m_choices = makeFigureTable(m_choicesModel, QStringLiteral("bitFlagChoices"), 4);
    m_choices->setToolTip(tr("Each storage choice against CSR: the density above which the bit flags take fewer bytes"));
    auto* bytesBox = new QGroupBox(tr("Bytes against CSR (fp64 values, 32-bit indices)"));
    auto* bytesLayout = new QVBoxLayout(bytesBox);
    bytesLayout->addWidget(m_bytes);
    bytesLayout->addWidget(m_bytesSummary);
    bytesLayout->addWidget(m_choices);

    m_op = new QComboBox;
    m_op->addItem(tr("Add  A + B"), int(app::BitFlagOp::Add));
    m_op->addItem(tr("Subtract  A − B"), int(app::BitFlagOp::Subtract));
    m_op->addItem(tr("Multiply  A · B (A·A: square only)"), int(app::BitFlagOp::Multiply));
    m_op->addItem(tr("LU of A (square only)"), int(app::BitFlagOp::Lu));
    m_operand = new QComboBox;
    m_operand->addItem(tr("B = A (the open matrix)"));
    m_operand->addItem(tr("B from a file…"));
    m_useCuda = new QCheckBox(tr("CUDA bit-flag kernels (fp64)"));
    m_useVendor = new QCheckBox(tr("cuSPARSE CSR (fp32) / cuSOLVER getrf (fp64)"));
    m_gpuNote = new QLabel;
    awaitDevice(this, {m_useCuda, m_useVendor}, m_gpuNote, [this](const DeviceInfo& device) { showDevice(device); });
    m_runButton = new QPushButton(tr("Run"));
    auto* opBox = new QGroupBox(tr("Operations"));
    auto* opForm = new QFormLayout(opBox);
    opForm->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);  // fields as wide as their content, not the panel
    opForm->addRow(tr("Operation"), m_op);
    opForm->addRow(tr("Operand B"), m_operand);
    opForm->addRow(m_useCuda);
    opForm->addRow(m_useVendor);
    opForm->addRow(m_gpuNote);
    opForm->addRow(m_runButton);
    // Said before Run: the reference multiply's time grows with R x C x words, not with the nonzeros.
    m_estimate = new QLabel;
    m_estimate->setObjectName(QStringLiteral("operationEstimate"));
    m_estimate->setWordWrap(true);
    m_estimate->setStyleSheet(QStringLiteral("color: #9a5b00"));
    m_estimate->hide();
    opForm->addRow(m_estimate);

    auto* column = new QWidget;
    auto* layout = new QVBoxLayout(column);
    layout->setContentsMargins(0, 0, 0, 0);
    m_hint = new SampleHint(m_context, tr("Stores the matrix as one flag bit per element plus its nonzero values in line "
                                          "order; finds elements by popcount, and adds, multiplies and factors in that form."));
    layout->addWidget(m_hint);
    layout->addWidget(encodeBox);
    layout->addWidget(bytesBox);
    layout->addWidget(opBox);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setWidget(column);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(360);
    scroll->setMaximumWidth(440);

    connect(m_encodeButton, &QPushButton::clicked, this, &BitFlagPanel::encode);
    connect(m_cancelButton, &QPushButton::clicked, this, &BitFlagPanel::cancel);
    connect(m_order, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { requestEncode(); });
    connect(m_prefix, &QCheckBox::toggled, this, [this] { requestEncode(); });
    connect(m_operand, qOverload<int>(&QComboBox::activated), this, &BitFlagPanel::chooseSecondOperand);
    connect(m_op, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
        m_operand->setEnabled(m_op->currentData().toInt() != int(app::BitFlagOp::Lu));
        updateEstimate();
    });
    connect(m_operand, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { updateEstimate(); });
    connect(&m_context, &MainContext::documentChanged, this, [this] { updateEstimate(); });
    connect(m_runButton, &QPushButton::clicked, this, &BitFlagPanel::runOperation);
    return scroll;
}

void BitFlagPanel::showDevice(const DeviceInfo& device) {
    m_gpuNote->setText(device.present ? tr("GPU: %1. The CPU reference always runs: it is what the others are checked against.")
                                            .arg(QString::fromStdString(device.name))
                                      : tr("No CUDA device (%1): only the CPU reference runs.")
                                            .arg(QString::fromStdString(device.reason)));
}

QWidget* BitFlagPanel::buildLineView() {
    m_lineName = new QLabel(tr("Row i"));
    m_line = new QSpinBox;
    m_line->setObjectName(QStringLiteral("bitFlagLine"));
    m_line->setRange(0, 0);
    m_line->setKeyboardTracking(false);
    m_line->setToolTip(tr("0-based, as the format indexes P and F"));
    m_lineInfo = new QLabel;
    m_lineInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // "of 0–2999. P[0] = 0, P[1] = 3: this row holds …" wraps: unwrapped, it set the panel's minimum
    // width once a matrix was encoded, and the tab scrolled sideways even on a 1920-pixel screen.
    m_lineInfo->setWordWrap(true);
    auto* header = new QHBoxLayout;
    header->addWidget(m_lineName);
    header->addWidget(m_line);
    header->addSpacing(12);
    header->addWidget(m_lineInfo, 1);

    m_strip = new BitFlagStripView;
    m_strip->setObjectName(QStringLiteral("bitFlagStrip"));
    auto* stripScroll = new QScrollArea;
    stripScroll->setWidget(m_strip);
    stripScroll->setWidgetResizable(true);
    stripScroll->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    // Short titles: a group box never elides its title, so a long one sets the panel's minimum width.
    auto* stripBox = new QGroupBox(tr("F: flag words of the line"));
    stripBox->setToolTip(tr("Low bit left; blue = set; hatched = past the line's end"));
    (new QVBoxLayout(stripBox))->addWidget(stripScroll);

    m_valuesModel = new BitFlagValuesModel(this);
    m_values = makeTable(m_valuesModel, QStringLiteral("bitFlagValues"));
    m_values->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_values->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    auto* valuesBox = new QGroupBox(tr("M[P[i] … P[i+1])"));
    (new QVBoxLayout(valuesBox))->addWidget(m_values);
    valuesBox->setFixedWidth(250);

    auto* arrays = new QHBoxLayout;
    arrays->addWidget(stripBox, 1);
    arrays->addWidget(valuesBox, 0);

    m_lookupRow = new QSpinBox;
    m_lookupCol = new QSpinBox;
    for (QSpinBox* s : {m_lookupRow, m_lookupCol}) {
        s->setRange(0, 0);
        s->setKeyboardTracking(false);
    }
    m_lookupRow->setObjectName(QStringLiteral("bitFlagLookupRow"));
    m_lookupCol->setObjectName(QStringLiteral("bitFlagLookupCol"));
    m_lookupButton = new QPushButton(tr("Look up"));
    m_lookupButton->setObjectName(QStringLiteral("bitFlagLookupButton"));
    m_lookup = new QLabel(tr("Click a cell of the strip, or give i and j, to see how the format finds the element."));
    m_lookup->setObjectName(QStringLiteral("bitFlagLookup"));
    m_lookup->setWordWrap(true);
    m_lookup->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_lookup->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    QFont mono = m_lookup->font();
    mono.setStyleHint(QFont::Monospace);
    mono.setFamily(QStringLiteral("monospace"));
    m_lookup->setFont(mono);
    auto* lookupBar = new QHBoxLayout;
    lookupBar->addWidget(new QLabel(tr("Element  i")));
    lookupBar->addWidget(m_lookupRow);
    lookupBar->addWidget(new QLabel(tr("j")));
    lookupBar->addWidget(m_lookupCol);
    lookupBar->addWidget(m_lookupButton);
    lookupBar->addStretch(1);
    auto* lookupBox = new QGroupBox(tr("Lookup path"));
    lookupBox->setToolTip(tr("Orange: the set bits counted before the element"));
    auto* lookupLayout = new QVBoxLayout(lookupBox);
    lookupLayout->addLayout(lookupBar);
    lookupLayout->addWidget(m_lookup, 1);

    auto* view = new QWidget;
    auto* layout = new QVBoxLayout(view);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addLayout(arrays, 3);
    layout->addWidget(lookupBox, 0);

    connect(m_line, qOverload<int>(&QSpinBox::valueChanged), this, [this](int line) { showLine(line); });
    connect(m_strip, &BitFlagStripView::positionClicked, this, [this](Index line, Index position) {
        const bool rowMajor = m_layout.format && m_layout.format->order == BitFlagOrder::RowMajor;
        lookUp(rowMajor ? line : position, rowMajor ? position : line);
    });
    connect(m_lookupButton, &QPushButton::clicked, this, [this] { lookUp(m_lookupRow->value(), m_lookupCol->value()); });
    connect(m_values, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const std::optional<Index> clicked = m_valuesModel->positionAt(index.row());
        if (!m_layout.format || !clicked) return;
        const Index position = *clicked;
        const bool rowMajor = m_layout.format->order == BitFlagOrder::RowMajor;
        lookUp(rowMajor ? shownLine() : position, rowMajor ? position : shownLine());
    });
    return view;
}

QWidget* BitFlagPanel::buildOperations() {
    m_opSummary = new QLabel(tr("Run an operation to compare the backends."));
    m_opSummary->setObjectName(QStringLiteral("operationSummary"));
    m_opSummary->setWordWrap(true);
    m_runsModel = new BitFlagRunsModel(this);
    m_runs = makeTable(m_runsModel, QStringLiteral("bitFlagRuns"));
    // Fixed widths: a spanned "did not run" reason must not widen the time column.
    m_runs->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_runs->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_runs->horizontalHeader()->setSectionResizeMode(5, QHeaderView::Stretch);
    m_runs->setColumnWidth(1, 90);
    m_runs->setColumnWidth(2, 72);
    m_runs->setColumnWidth(3, 60);
    m_runs->setColumnWidth(4, 200);
    m_runs->setWordWrap(false);
    m_timings = new TimingChart;
    // The runs' times are the measurement engine's (BitFlagOpRun::timing): say so, not "one call".
    m_timings->setTitle(tr("Median time per backend"));
    m_timings->setToolTip(tr("GPU: median of CUDA-event runs after warm-up, device work alone (upload, download and the "
                             "cold first call are in the table). CPU reference: one run, steady clock."));
    m_timings->setMinimumHeight(160);
    m_timings->setMinimumWidth(360);
    m_timings->setMaximumWidth(380);
    // The summary (and a multiply's verdict, a sentence or two) spans the box: beside the chart it was
    // a column a few words wide.
    auto* box = new QGroupBox(tr("Operation results"));
    auto* outer = new QVBoxLayout(box);
    outer->addWidget(m_opSummary);
    auto* results = new QHBoxLayout;
    results->addWidget(m_runs, 1);
    results->addWidget(m_timings, 0);
    outer->addLayout(results, 1);
    return box;
}

QString BitFlagPanel::statusText() const { return m_status->text(); }
QString BitFlagPanel::lookupText() const { return m_lookup->text(); }
QString BitFlagPanel::bytesText() const { return m_bytesSummary->text(); }
Index BitFlagPanel::shownLine() const { return m_strip->line(); }

void BitFlagPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_stale) requestEncode();
}

void BitFlagPanel::setOrder(BitFlagOrder order) { m_order->setCurrentIndex(order == BitFlagOrder::RowMajor ? 0 : 1); }
void BitFlagPanel::setPrefixCounts(bool on) { m_prefix->setChecked(on); }

void BitFlagPanel::setOperation(app::BitFlagOp op) { m_op->setCurrentIndex(m_op->findData(int(op))); }

void BitFlagPanel::setSecondOperandFile(const QString& path) {
    m_secondFile = path;
    if (path.isEmpty()) {
        m_operand->setItemText(1, tr("B from a file…"));
        m_operand->setCurrentIndex(0);
    } else {
        m_operand->setItemText(1, tr("B = %1").arg(QFileInfo(path).fileName()));
        m_operand->setCurrentIndex(1);
    }
}

void BitFlagPanel::chooseSecondOperand(int index) {
    if (index == 0) {
        setSecondOperandFile(QString());
        return;
    }
    const QString path = QFileDialog::getOpenFileName(this, tr("Second operand B"), QFileInfo(m_context.document().path()).absolutePath(),
                                                      tr("Matrix Market (*.mtx *.mtx.gz);;All files (*)"));
    setSecondOperandFile(path);
}

void BitFlagPanel::requestEncode() {
    if (m_context.document().isEmpty()) return;
    if (m_job.isRunning()) {
        m_encodePending = true;
        return;
    }
    encode();
}

void BitFlagPanel::encode() {
    const std::shared_ptr<const Matrix> matrix = m_context.matrixOrAsk(m_status);
    if (!matrix) return;
    app::BitFlagLayoutRequest request;
    request.matrix = matrix;
    request.order = m_order->currentIndex() == 0 ? BitFlagOrder::RowMajor : BitFlagOrder::ColumnMajor;
    request.prefixCounts = m_prefix->isChecked();
    if (!m_job.startLayout(request)) {
        m_encodePending = true;
        return;
    }
    m_encodePending = false;
    m_stale = false;
    m_encoding = true;
    m_jobMatrix = request.matrix;
    setBusy(true, tr("Encoding…"));
}

void BitFlagPanel::cancel() { m_job.cancel(); }

void BitFlagPanel::setBusy(bool busy, const QString& what) {
    if (!busy) m_encoding = false;
    m_encodeButton->setEnabled(!busy);
    m_runButton->setEnabled(!busy);
    m_cancelButton->setEnabled(busy);
    if (busy) {
        m_progress->setValue(0);
        m_progress->setFormat(QStringLiteral("%p%"));
        m_status->setText(what);
    } else {
        m_progress->setValue(0);
        m_progress->setFormat(QString());
    }
}

void BitFlagPanel::clearAll() {
    m_layout = {};
    m_result = {};
    m_strip->setMatrix(nullptr);
    m_valuesModel->clear();
    m_bytesModel->clear();
    m_choicesModel->clear();
    m_bytesSummary->clear();
    m_lineInfo->clear();
    m_runs->clearSpans();
    m_runsModel->clear();
    m_timings->clear();
    m_opSummary->setText(tr("Run an operation to compare the backends."));
    m_lookup->setText(tr("Click a cell of the strip, or give i and j, to see how the format finds the element."));
    m_status->setText(tr("Encode the matrix to see its bit-flag form."));
    const app::MatrixDocument& document = m_context.document();
    if (document.isEmpty())
        m_hint->offer(QStringLiteral("blocks"), tr("No matrix is open."));
    else if (document.stats().field == Field::Complex)
        m_hint->offer(QStringLiteral("blocks"), tr("This matrix is complex: the bit-flag form stores real values."));
    else
        m_hint->clearOffer();
}

bool BitFlagPanel::dropIfStale() {
    if (m_jobMatrix == m_context.document().matrix()) return false;
    setBusy(false, {});
    if (m_encodePending) requestEncode();
    return true;
}

void BitFlagPanel::showFailure(const QString& message) {
    if (dropIfStale()) return;
    const bool wasEncoding = m_encoding;
    setBusy(false, {});
    if (wasEncoding) showEstimate();
    m_status->setText(tr("Failed: %1").arg(message));
    emit failureShown(message);
    if (m_encodePending) requestEncode();
}

void BitFlagPanel::showLayout(const app::BitFlagLayout& layout) {
    if (dropIfStale()) return;
    setBusy(false, {});
    m_layout = layout;
    const BitFlagMatrix<double>& m = *layout.format;
    const bool rowMajor = m.order == BitFlagOrder::RowMajor;
    m_lineName->setText(rowMajor ? tr("Row i") : tr("Column j"));
    m_strip->setMatrix(layout.format);
    {
        const QSignalBlocker block(m_line);
        m_line->setRange(0, std::max<Index>(m.lines() - 1, 0));
        m_line->setValue(std::min<int>(m_line->value(), std::max<Index>(m.lines() - 1, 0)));
    }
    m_lookupRow->setRange(0, std::max<Index>(m.rows - 1, 0));
    m_lookupCol->setRange(0, std::max<Index>(m.cols - 1, 0));
    showBytes();
    showLine(m_line->value());
    m_status->setText(tr("Encoded %1 × %2, %3 entries, %4 in %5 ms (%6-bit words, %7 per line).")
                          .arg(m.rows).arg(m.cols).arg(m.nonzeros)
                          .arg(QString::fromLatin1(toString(m.order)))
                          .arg(layout.encodeMs, 0, 'f', 1)
                          .arg(m.wordBits).arg(m.wordsPerLine));
    emit layoutShown();
    if (m_encodePending) requestEncode();
}

void BitFlagPanel::showBytes() {
    const BitFlagMatrix<double>& m = *m_layout.format;
    const BitFlagStats& s = m_layout.stats;
    m_bytesModel->setLayout(m_layout);
    const bool bitFlagWins = s.bitFlagBytes < s.csrBytes;
    m_bytesSummary->setText(tr("Density %1 (%2 of %3 elements). The bit flags are smaller than CSR above %4 for this "
                               "storage; here <b>%5</b> (%6× of CSR).")
                                .arg(formatPercent(s.density))
                                .arg(s.nonzeros)
                                .arg(double(m.rows) * double(m.cols), 0, 'g', 12)
                                .arg(formatPercent(s.breakEvenDensity))
                                .arg(bitFlagWins ? tr("the bit-flag form wins") : tr("CSR wins"))
                                .arg(double(s.bitFlagBytes) / std::max(1.0, double(s.csrBytes)), 0, 'f', 2));
    m_choicesModel->setChoices(m_layout.choices, double(s.csrBytes), BitFlagChoicesModel::Current{m.order, m.withPrefixCounts});
}

void BitFlagPanel::showEstimate() {
    // A refused (or failed) encoding still has an answer to "how big, and where does it win":
    // the bytes follow from the shape and the entry count alone.
    const app::MatrixDocument& document = m_context.document();
    if (document.isEmpty()) return;
    const Matrix& m = *document.matrix();
    const Count entries = m.expandedEntries();
    const double csr = app::csrBytes(m.rows, entries);
    m_bytesModel->clear();
    QVector<app::BitFlagBytes> choices;
    for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor})
        for (bool prefix : {false, true}) choices << app::estimateBitFlagBytes(m.rows, m.cols, entries, order, prefix);
    m_choicesModel->setChoices(choices, csr, std::nullopt);
    const double density = m.rows > 0 && m.cols > 0 ? double(entries) / (double(m.rows) * double(m.cols)) : 0;
    m_bytesSummary->setText(tr("Not encoded. Estimated from the shape: density %1 (%2 entries); CSR takes %3.")
                                .arg(formatPercent(density)).arg(entries).arg(formatBytes(csr)));
}

void BitFlagPanel::showLine(Index line) {
    if (!m_layout.format) return;
    const BitFlagMatrix<double>& m = *m_layout.format;
    if (line < 0 || line >= m.lines()) return;
    if (m_line->value() != line) {
        const QSignalBlocker block(m_line);
        m_line->setValue(line);
    }
    m_strip->setLine(line);
    const Count begin = m.lineStart[std::size_t(line)], end = m.lineStart[std::size_t(line) + 1];
    const QString name = m.order == BitFlagOrder::RowMajor ? tr("row") : tr("column");
    const QString held = end - begin == 1 ? tr("1 value") : tr("%1 values").arg(end - begin);
    m_lineInfo->setText(tr("of 0–%1.   P[%2] = %3,  P[%4] = %5:  this %6 holds %7, M[%3 … %5)%8")
                            .arg(m.lines() - 1).arg(line).arg(begin).arg(line + 1).arg(end).arg(name, held)
                            .arg(m.withPrefixCounts ? tr(";  right of each word: popcount · stored prefix count")
                                                    : tr(";  right of each word: its popcount")));
    fillValuesTable();
}

void BitFlagPanel::fillValuesTable() { m_valuesModel->setLine(m_layout.format, m_strip->line(), m_strip->setPositions()); }

void BitFlagPanel::lookUp(Index row, Index col) {
    if (!m_layout.format) {
        m_lookup->setText(tr("Encode the matrix first."));
        return;
    }
    const BitFlagMatrix<double>& m = *m_layout.format;
    if (row < 0 || row >= m.rows || col < 0 || col >= m.cols) {
        m_lookup->setText(tr("(%1, %2) lies outside the %3 × %4 matrix.").arg(row).arg(col).arg(m.rows).arg(m.cols));
        return;
    }
    const app::BitFlagLookupPath path = app::lookupBitFlag(m, row, col);
    {
        const QSignalBlocker blockRow(m_lookupRow), blockCol(m_lookupCol);
        m_lookupRow->setValue(row);
        m_lookupCol->setValue(col);
    }
    showLine(path.line);
    m_strip->setSelectedPosition(path.position);
    if (auto* scroll = qobject_cast<QScrollArea*>(m_strip->parentWidget() ? m_strip->parentWidget()->parentWidget() : nullptr))
        scroll->ensureVisible(m_strip->cellRect(path.position).center().x(), m_strip->cellRect(path.position).center().y(), 40, 40);
    m_values->clearSelection();
    if (path.valueIndex) {
        const int r = int(*path.valueIndex - path.lineStart);
        if (r < m_valuesModel->rowCount()) {
            m_values->selectRow(r);
            m_values->scrollTo(m_valuesModel->index(r, 0));
        }
    }
    m_lookup->setText(path.describe());
}

void BitFlagPanel::runOperation() {
    const std::shared_ptr<const Matrix> matrix = m_context.matrixOrAsk(m_status);
    if (!matrix) return;
    app::BitFlagOpRequest request;
    request.a = matrix;
    request.op = app::BitFlagOp(m_op->currentData().toInt());
    if (m_operand->currentIndex() == 1 && !m_secondFile.isEmpty()) request.bPath = m_secondFile;
    request.cuda = m_useCuda->isEnabled() && m_useCuda->isChecked();
    request.vendor = m_useVendor->isEnabled() && m_useVendor->isChecked();
    request.prefixCounts = m_prefix->isChecked();
    if (!m_job.startOperation(request)) {
        m_status->setText(tr("Busy: wait for the current run or cancel it."));
        return;
    }
    m_jobMatrix = request.a;
    const QString warning = request.bPath.isEmpty() ? app::longWorkWarning(request.op, matrix->rows, matrix->cols) : QString();
    setBusy(true, warning.isEmpty() ? tr("Running %1…").arg(app::toString(request.op))
                                    : tr("Running %1… %2").arg(app::toString(request.op), warning));
}

QString BitFlagPanel::estimateText() const { return m_estimate->isHidden() ? QString() : m_estimate->text(); }

void BitFlagPanel::updateEstimate() {
    const app::MatrixDocument& document = m_context.document();
    const bool secondFile = m_operand->currentIndex() == 1 && !m_secondFile.isEmpty();
    const QString warning = document.isEmpty() || secondFile
                                ? QString()
                                : app::longWorkWarning(app::BitFlagOp(m_op->currentData().toInt()), document.rows(), document.cols());
    m_estimate->setText(warning);
    m_estimate->setVisible(!warning.isEmpty());
}

void BitFlagPanel::showResult(const app::BitFlagOpResult& result) {
    if (dropIfStale()) return;
    setBusy(false, {});
    m_result = result;
    QVector<QPair<QString, double>> times;
    m_runs->clearSpans();
    m_runsModel->setResult(result);
    for (int r = 0; r < result.runs.size(); ++r) {
        const app::BitFlagOpRun& run = result.runs[r];
        // The reason spans the figures it replaces.
        if (m_runsModel->errorRow(r))
            m_runs->setSpan(r, BitFlagRunsModel::Result, 1, BitFlagRunsModel::ColumnCount - BitFlagRunsModel::Result);
        else
            times << qMakePair(run.name, run.timing.medianMs);
    }
    m_timings->setTimings(times, tr("ms"));
    QString summary = result.description;
    if (!result.runs.isEmpty() && !result.runs.front().error.isEmpty())
        summary += tr(" — the CPU reference stopped: %1").arg(result.runs.front().error);
    else
        summary += result.allAgree() ? tr(" — every backend that ran agrees within its error bound.")
                                     : tr(" — a result is outside its error bound (see the table).");
    if (!result.verdict.isEmpty()) summary += QLatin1Char('\n') + result.verdict;
    m_opSummary->setText(summary);
    m_status->setText(tr("Finished: %1.").arg(result.description));
    emit operationShown();
    if (m_encodePending) requestEncode();
}

} // namespace spyglass::widgets
