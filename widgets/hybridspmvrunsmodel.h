#pragma once
// The backends of one hybrid SpMV run: upload, median and range of the warm runs, and the check
// against the reference (equal for a binary encoding, within rounding for a valued one). A backend
// that could not run says why in the Check column.
#include "core/hybridspmvjob.h"

#include <QAbstractTableModel>

namespace spyglass::widgets {

class HybridSpmvRunsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Backend, Upload, Median, Range, Check, ColumnCount };

    explicit HybridSpmvRunsModel(QObject* parent = nullptr);
    void setResult(const app::HybridSpmvResult& result);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString text(const app::HybridSpmvRun& run, int column) const;

    app::HybridSpmvResult m_result;
};

} // namespace spyglass::widgets
