#include "readonlytable.h"

#include "columnfitter.h"

#include <QHeaderView>
#include <QTableView>

namespace spyglass::widgets {

QTableView* readOnlyTable(QAbstractItemModel* model, const QString& objectName, TableTraits traits) {
    auto* table = new QTableView;
    table->setModel(model);
    if (!objectName.isEmpty()) table->setObjectName(objectName);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    if (traits.testFlag(TableTrait::StretchLastColumn)) table->horizontalHeader()->setStretchLastSection(true);
    if (traits.testFlag(TableTrait::SelectOneRow)) {
        table->setSelectionBehavior(QAbstractItemView::SelectRows);
        table->setSelectionMode(QAbstractItemView::SingleSelection);
    }
    if (traits.testFlag(TableTrait::NoRowNumbers)) table->verticalHeader()->setVisible(false);
    ColumnFitter::install(table);
    return table;
}

} // namespace spyglass::widgets
