#pragma once
// Each storage choice of the bit-flag form (row/column-major, with/without prefix counts) against
// CSR: its bytes and the density above which it wins; green where it is smaller than CSR, red
// where not, the choice in use in bold.
#include "core/bitflagjob.h"
#include "rowtablemodel.h"

#include <QVector>

#include <optional>

namespace spyglass::widgets {

class BitFlagChoicesModel : public RowTableModel<app::BitFlagBytes> {
    Q_OBJECT
public:
    enum Column { Storage, Bytes, WinsAbove, ColumnCount };

    struct Current {
        BitFlagOrder order = BitFlagOrder::RowMajor;
        bool prefixCounts = false;
    };

    explicit BitFlagChoicesModel(QObject* parent = nullptr);
    // `csrBytes`: what CSR takes of the same matrix; `current`: the choice encoded (none for an estimate).
    void setChoices(const QVector<app::BitFlagBytes>& choices, double csrBytes, std::optional<Current> current);

private:
    QVariant cell(const app::BitFlagBytes& choice, const QModelIndex& index, int role) const override;

    double m_csrBytes = 0;
    std::optional<Current> m_current;
};

} // namespace spyglass::widgets
