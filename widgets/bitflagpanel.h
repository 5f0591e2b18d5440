#pragma once
// The bit-flag view (method A) of the open matrix: the M, F and P arrays of a chosen row (column
// for column-major) drawn as a strip of flag words beside the row's slice of M; the lookup path of a
// clicked element (flag bit, P[i], popcount or prefix count + popcount, index into M); the bytes of
// the bit-flag form against CSR and the density where each wins; and add / subtract / multiply / LU
// run on the CPU reference, the CUDA kernels and the vendor library, checked and timed. The work
// runs in app::BitFlagJob; this widget only shows what arrives.
#include "core/deviceinfocache.h"
#include "core/bitflagjob.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;

namespace spyglass::widgets {

class BitFlagBytesModel;
class BitFlagChoicesModel;
class BitFlagRunsModel;
class BitFlagStripView;
class BitFlagValuesModel;
class MainContext;
class SampleHint;
class TimingChart;

class BitFlagPanel : public QWidget {
    Q_OBJECT
public:
    explicit BitFlagPanel(MainContext& context, QWidget* parent = nullptr);

    // For tests: what is shown.
    const app::BitFlagLayout& layout() const { return m_layout; }
    const app::BitFlagOpResult& operationResult() const { return m_result; }
    BitFlagStripView* strip() const { return m_strip; }
    QString statusText() const;
    // The empty state: what the method does and, when no suitable matrix is open, a sample.
    SampleHint* sampleHint() const { return m_hint; }
    QString lookupText() const;
    QString bytesText() const;
    // The warning with the estimated time shown before Run (empty when the operation is quick).
    QString estimateText() const;
    Index shownLine() const;
    // The tables' models.
    const BitFlagBytesModel& bytesModel() const { return *m_bytesModel; }
    const BitFlagChoicesModel& choicesModel() const { return *m_choicesModel; }
    const BitFlagValuesModel& valuesModel() const { return *m_valuesModel; }
    const BitFlagRunsModel& runsModel() const { return *m_runsModel; }

public slots:
    void encode();                   // encode the open matrix with the chosen order / prefix counts
    void setOrder(spyglass::BitFlagOrder order);
    void setPrefixCounts(bool on);
    void showLine(spyglass::Index line);
    void lookUp(spyglass::Index row, spyglass::Index col);  // also shows the element's line
    void setOperation(spyglass::app::BitFlagOp op);
    void setSecondOperandFile(const QString& path);  // empty: B = A
    void runOperation();
    void cancel();

signals:
    void layoutShown();
    void operationShown();
    void failureShown(const QString& message);

protected:
    void showEvent(QShowEvent* event) override;

private:
    QWidget* buildControls();
    QWidget* buildLineView();
    QWidget* buildOperations();
    void requestEncode();
    void showLayout(const app::BitFlagLayout& layout);
    void showBytes();
    void updateEstimate();
    void showEstimate();
    void fillValuesTable();
    void showResult(const app::BitFlagOpResult& result);
    void showFailure(const QString& message);
    bool dropIfStale();  // a result for a matrix that is no longer open: drop it, start what waits
    void clearAll();
    void setBusy(bool busy, const QString& what);
    void chooseSecondOperand(int index);
    void showDevice(const spyglass::DeviceInfo& device);

    MainContext& m_context;
    app::BitFlagJob m_job;
    app::BitFlagLayout m_layout;
    app::BitFlagOpResult m_result;
    bool m_stale = true;          // the layout does not match the document / options
    bool m_encodePending = false; // options changed while a job ran
    bool m_encoding = false;      // the running job is an encoding
    QString m_secondFile;
    std::shared_ptr<const Matrix> m_jobMatrix;  // what the running (or last) job works on

    // Encoding and bytes
    QComboBox* m_order;
    QCheckBox* m_prefix;
    QPushButton* m_encodeButton;
    QPushButton* m_cancelButton;
    QProgressBar* m_progress;
    SampleHint* m_hint = nullptr;
    QLabel* m_status;
    BitFlagBytesModel* m_bytesModel;
    QTableView* m_bytes;
    QLabel* m_bytesSummary;
    BitFlagChoicesModel* m_choicesModel;
    QTableView* m_choices;
    // Line view and lookup
    QLabel* m_lineName;
    QSpinBox* m_line;
    QLabel* m_lineInfo;
    BitFlagStripView* m_strip;
    BitFlagValuesModel* m_valuesModel;
    QTableView* m_values;
    QSpinBox* m_lookupRow;
    QSpinBox* m_lookupCol;
    QPushButton* m_lookupButton;
    QLabel* m_lookup;
    // Operations
    QComboBox* m_op;
    QComboBox* m_operand;
    QCheckBox* m_useCuda;
    QCheckBox* m_useVendor;
    QLabel* m_gpuNote;
    QPushButton* m_runButton;
    QLabel* m_opSummary;
    QLabel* m_estimate;  // the time a long operation will take, shown before Run
    BitFlagRunsModel* m_runsModel;
    QTableView* m_runs;
    TimingChart* m_timings;
};

} // namespace spyglass::widgets
