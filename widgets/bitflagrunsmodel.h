#pragma once
// The backends of one bit-flag operation: verdict against the check, time, entries of the result,
// difference (LU: backward error, then the factors against the reference) and what it was checked
// against. A backend that could not run says why in the Result column; the view spans that cell
// over the figures it replaces (errorRow()).
#include "core/bitflagjob.h"
#include "rowtablemodel.h"

namespace spyglass::widgets {

class BitFlagRunsModel : public RowTableModel<app::BitFlagOpRun> {
    Q_OBJECT
public:
    enum Column { Backend, Result, Time, Entries, Difference, CheckedAgainst, ColumnCount };

    explicit BitFlagRunsModel(QObject* parent = nullptr);
    void setResult(const app::BitFlagOpResult& result);
    bool errorRow(int row) const { return !rowAt(row).error.isEmpty(); }

private:
    QVariant cell(const app::BitFlagOpRun& run, const QModelIndex& index, int role) const override;
    QString text(const app::BitFlagOpRun& run, int row, int column) const;
    QString verdict(const app::BitFlagOpRun& run) const;

    bool m_lu = false;  // the operation was an LU factorisation
};

} // namespace spyglass::widgets
