#pragma once
// The shape every table model of the panels shares: a fixed list of columns (title, header tooltip,
// alignment) over a vector of plain rows. A model derived from it says only what is its own: its
// columns, passed to the constructor, and how a row becomes each cell (cell()). Context the cells
// read besides the row (a result's operation, the matrix a row points into) changes in the same
// reset as the rows, so that no view sees new rows with old context.
// A class template cannot carry Q_OBJECT: the models derived from it do, for tr() and their
// class name; none of them adds signals of its own.
#include "tablecolumn.h"

#include <QAbstractTableModel>
#include <QFont>

#include <utility>
#include <vector>

namespace spyglass::widgets {

template <typename Row>
class RowTableModel : public QAbstractTableModel {
public:
    RowTableModel(std::vector<TableColumn> columns, QObject* parent) : QAbstractTableModel(parent), m_columns(std::move(columns)) {}

    virtual void clear() { setRows({}); }
    const Row& rowAt(int row) const { return m_rows[std::size_t(row)]; }

    int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : int(m_rows.size()); }
    int columnCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : int(m_columns.size()); }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override {
        if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
        const QVariant value = cell(rowAt(index.row()), index, role);
        const Qt::Alignment alignment = m_columns[std::size_t(index.column())].alignment;
        if (role == Qt::TextAlignmentRole && !value.isValid() && alignment) return QVariant(alignment);
        return value;
    }

    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override {
        if (orientation == Qt::Horizontal && section >= 0 && section < columnCount()) {
            const TableColumn& column = m_columns[std::size_t(section)];
            if (role == Qt::DisplayRole) return column.title;
            if (role == Qt::ToolTipRole && !column.headerTip.isEmpty()) return column.headerTip;
        }
        return QAbstractTableModel::headerData(section, orientation, role);
    }

protected:
    // Each model fills its rows from its own input (setResult, setLayout ...), which stays its public API.
    void setRows(std::vector<Row> rows) {
        setRows(std::move(rows), [] {});
    }

    // The cell of `row` (the one at `index`) for `role`; an invalid value for a role it does not
    // fill. A TextAlignmentRole left invalid falls back to the column's alignment.
    virtual QVariant cell(const Row& row, const QModelIndex& index, int role) const = 0;

    // Replaces the rows, and what `alsoInReset` changes of the cells' context, in one reset.
    template <typename Change>
    void setRows(std::vector<Row> rows, Change&& alsoInReset) {
        beginResetModel();
        m_rows = std::move(rows);
        alsoInReset();
        endResetModel();
    }
    void appendRow(Row row) {
        beginInsertRows({}, rowCount(), rowCount());
        m_rows.push_back(std::move(row));
        endInsertRows();
    }
    // The font of a row that stands out: the totals, the choice in use.
    static QFont boldFont() {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    // A title that follows the content (say, "Row" or "Column"); the caller emits headerDataChanged.
    void setColumnTitle(int column, const QString& title) { m_columns[std::size_t(column)].title = title; }

private:
    std::vector<TableColumn> m_columns;
    std::vector<Row> m_rows;
};

} // namespace spyglass::widgets
