#pragma once
// Table columns sized to their content, shrunk only when the table is truly too narrow: each column
// gets the width of its widest cell or heading; when they do not all fit in the view, the widest are
// narrowed together (never below a floor) until they do, and the cells and headings that no longer
// fit are elided with their full text as the tooltip. Refitted when the model changes or the view is
// resized, so a table shows its result without a horizontal scroll bar whatever the window's size.
#include <QObject>

class QModelIndex;
class QTableView;

namespace spyglass::widgets {

class ColumnFitter : public QObject {
    Q_OBJECT
public:
    // Fits `table`'s columns from now on (the fitter is a child of the table).
    static ColumnFitter* install(QTableView* table);

    // The narrowest a shrunk column gets: about "1.2e+" in the default font.
    static constexpr int kMinimumColumn = 48;

    // The width a cell's text needs to show in full (its text, padding and any decoration).
    static int neededWidth(const QTableView* table, const QModelIndex& index);
    static int neededHeadingWidth(const QTableView* table, int column);
    // The tooltip the view shows for a cell: the model's own, else the full text when the cell is
    // too narrow for it; empty when it shows in full and the model has none.
    static QString toolTip(const QTableView* table, const QModelIndex& index);
    // The same for a column heading.
    static QString headingToolTip(const QTableView* table, int column);

    void fit();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit ColumnFitter(QTableView* table);
    void fitSoon();
    QTableView* m_table;
    bool m_pending = false;
};

} // namespace spyglass::widgets
