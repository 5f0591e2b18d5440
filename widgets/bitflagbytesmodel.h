#pragma once
// The bytes of an encoded bit-flag form against CSR, array by array (M | values, F | column
// indices, P | row pointers, prefix counts), then the totals in bold. Empty until a layout is set.
#include "core/bitflagjob.h"
#include "rowtablemodel.h"

namespace spyglass::widgets {

// One array of the bit-flag form and its CSR counterpart.
struct BitFlagArrayBytes {
    QString name;
    double bitFlag = 0, csr = 0;
    bool hasCsr = true;  // prefix counts have no CSR counterpart
};

class BitFlagBytesModel : public RowTableModel<BitFlagArrayBytes> {
    Q_OBJECT
public:
    enum Column { Array, BitFlag, Csr, ColumnCount };

    explicit BitFlagBytesModel(QObject* parent = nullptr);
    void setLayout(const app::BitFlagLayout& layout);

private:
    QVariant cell(const BitFlagArrayBytes& row, const QModelIndex& index, int role) const override;
};

} // namespace spyglass::widgets
