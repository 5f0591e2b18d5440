#pragma once
// The read-only table views of the panels: cells are never edited, and each view says which of the
// few common traits it has (the last column taking the spare width, whole-row single selection, no
// row numbers). Columns are sized to their content and elided, with the full text as tooltip, only
// when the view is too narrow (ColumnFitter). The panels then add only what is their own (heights, tooltips).
#include <QFlags>
#include <QItemSelectionModel>
#include <QString>
#include <QTableView>

class QAbstractItemModel;

namespace spyglass::widgets {

enum class TableTrait {
    StretchLastColumn = 0x1,
    SelectOneRow = 0x2,   // clicks select whole rows, one at a time
    NoRowNumbers = 0x4,
};
Q_DECLARE_FLAGS(TableTraits, TableTrait)

// A view of `model` named `objectName` (for tests; empty: none).
QTableView* readOnlyTable(QAbstractItemModel* model, const QString& objectName, TableTraits traits);

// Calls `chosen(row)` when a row is selected (a click, the keyboard, setCurrentIndex) and -1 when the
// selection is cleared, in the view's row numbers. Selection, not the current index: a view that
// gains focus makes its first row current without selecting it (a run's button, disabled while it
// runs, hands the focus on to the next table), and that must not highlight or zoom the picture.
template <typename Chosen> void onRowSelected(QTableView* table, QObject* receiver, Chosen chosen) {
    QObject::connect(table->selectionModel(), &QItemSelectionModel::selectionChanged, receiver, [table, chosen] {
        const QModelIndexList rows = table->selectionModel()->selectedRows();
        chosen(rows.isEmpty() ? -1 : rows.first().row());
    });
}

} // namespace spyglass::widgets

Q_DECLARE_OPERATORS_FOR_FLAGS(spyglass::widgets::TableTraits)
