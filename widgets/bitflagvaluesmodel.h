#pragma once
// M[P[i] … P[i+1]) of one line of a bit-flag form: each stored value's index into M, its position
// in the line (column of a row, row of a column) and the value. A dense line of a wide matrix has as
// many values as columns: past kMaxRows a last row says how many more there are.
#include "rowtablemodel.h"
#include "core/bitflagjob.h"

#include <QVector>

#include <memory>
#include <optional>

namespace spyglass::widgets {

// A row is the position of a stored value in the line; none for the "… more" row.
class BitFlagValuesModel : public RowTableModel<std::optional<Index>> {
    Q_OBJECT
public:
    enum Column { MIndex, Position, Value, ColumnCount };
    static constexpr int kMaxRows = 5000;

    explicit BitFlagValuesModel(QObject* parent = nullptr);
    // `positions`: the set positions of `line`, in order (as the strip shows them).
    void setLine(std::shared_ptr<const BitFlagMatrix<double>> format, Index line, const QVector<Index>& positions);
    void clear() override;
    // The position (column or row) a table row stands for; none for the "… more" row.
    std::optional<Index> positionAt(int row) const;

private:
    QVariant cell(const std::optional<Index>& position, const QModelIndex& index, int role) const override;

    std::shared_ptr<const BitFlagMatrix<double>> m_format;
    Count m_begin = 0;  // P[line]
    qsizetype m_more = 0;  // positions past kMaxRows
};

} // namespace spyglass::widgets
