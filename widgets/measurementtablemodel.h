#pragma once
// The timing table every method tab shows under its run (batched inverse, batched SVD, segmented
// DIA): one row per backend with what a benchmark prints — the median and range of the warm runs,
// the ratio to the vendor row, the share of the device's copy bandwidth — and the steps measured
// apart (cold first call, set-up, upload, download). Each time cell's tooltip says how it was measured.
#include "rowtablemodel.h"

#include "core/timingtext.h"

#include <QObject>

class QTableView;
#include <QString>

namespace spyglass::widgets {

struct MeasuredRow {
    QString name;           // "Spyglass CUDA (thread-per-matrix)", "cuBLAS getrf+getri", "CPU reference"
    Measurement timing;
    double bytesMoved = 0;  // the bandwidth floor's bytes; 0: no bandwidth column figure
    bool isVendor = false;  // NVIDIA's library: the fastest such row is the one the others are compared with
    QString note;           // a run that failed says why here and has no timing
};

class MeasurementTableModel : public RowTableModel<MeasuredRow> {
    Q_OBJECT
public:
    enum Column { Backend, Median, Ratio, Bandwidth, Cold, Setup, Upload, Download, ColumnCount };
    explicit MeasurementTableModel(QObject* parent = nullptr);
    void setMeasurements(std::vector<MeasuredRow> rows) { setRows(std::move(rows)); }
    void addMeasurement(MeasuredRow row) { appendRow(std::move(row)); }
    // The vendor's median over this row's (> 1: faster than the vendor); 0 without a vendor row.
    double speedupOfRow(int row) const;

protected:
    QVariant cell(const MeasuredRow& row, const QModelIndex& index, int role) const override;

private:
    const MeasuredRow* vendorRow() const;
};

// The read-only view every tab shows the model in (object name "measurements"): columns sized to their
// content, so that figures and backend names are read whole.
QTableView* measurementTable(MeasurementTableModel* model);

} // namespace spyglass::widgets
