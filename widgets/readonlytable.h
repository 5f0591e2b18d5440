#pragma once
// The read-only table views of the panels: cells are never edited, and each view says which of the
// few common traits it has (the last column taking the spare width, whole-row single selection, no
// row numbers). Columns are sized to their content and elided, with the full text as tooltip, only
// when the view is too narrow (ColumnFitter). The panels then add only what is their own (heights, tooltips).
#include <QFlags>
#include <QString>

class QAbstractItemModel;
class QTableView;

namespace spyglass::widgets {

enum class TableTrait {
    StretchLastColumn = 0x1,
    SelectOneRow = 0x2,   // clicks select whole rows, one at a time
    NoRowNumbers = 0x4,
};
Q_DECLARE_FLAGS(TableTraits, TableTrait)

// A view of `model` named `objectName` (for tests; empty: none).
QTableView* readOnlyTable(QAbstractItemModel* model, const QString& objectName, TableTraits traits);

} // namespace spyglass::widgets

Q_DECLARE_OPERATORS_FOR_FLAGS(spyglass::widgets::TableTraits)
