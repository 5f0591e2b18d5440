#pragma once
// The backends of one bit-flag operation: verdict against the check, time, entries of the result,
// difference (LU: backward error, then the factors against the reference) and what it was checked
// against. A backend that could not run says why in the Result column; the view spans that cell
// over the figures it replaces (errorRow()).
#include "core/bitflagjob.h"

#include <QAbstractTableModel>

namespace spyglass::widgets {

class BitFlagRunsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Backend, Result, Time, Entries, Difference, CheckedAgainst, ColumnCount };

    explicit BitFlagRunsModel(QObject* parent = nullptr);
    void setResult(const app::BitFlagOpResult& result);
    void clear();
    bool errorRow(int row) const { return !m_result.runs[row].error.isEmpty(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString text(int row, int column) const;
    QString verdict(const app::BitFlagOpRun& run) const;

    app::BitFlagOpResult m_result;
};

} // namespace spyglass::widgets
