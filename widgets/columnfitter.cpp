#include "columnfitter.h"

#include <QAbstractItemModel>
#include <QHeaderView>
#include <QHelpEvent>
#include <QScrollBar>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QToolTip>

#include <algorithm>
#include <numeric>
#include <vector>

namespace spyglass::widgets {

namespace {
// The text margins a default item delegate keeps left and right of a cell's text (QStyle's focus
// frame margin plus one, each side), and a little slack so a fitted column never elides by a pixel.
int cellPadding(const QTableView* table) {
    return 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1) + 4;
}
} // namespace

ColumnFitter* ColumnFitter::install(QTableView* table) {
    if (auto* existing = table->findChild<ColumnFitter*>(QString(), Qt::FindDirectChildrenOnly)) return existing;
    return new ColumnFitter(table);
}

ColumnFitter::ColumnFitter(QTableView* table) : QObject(table), m_table(table) {
    table->setTextElideMode(Qt::ElideRight);
    table->setWordWrap(false);
    table->horizontalHeader()->setTextElideMode(Qt::ElideRight);
    // The style centres a heading and clips a narrowed one on both sides ("edian (m"); from the left
    // it keeps its start, which is what names the column (its tooltip has the rest).
    table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    table->viewport()->installEventFilter(this);
    table->horizontalHeader()->viewport()->installEventFilter(this);
    table->horizontalHeader()->installEventFilter(this);
    auto connectModel = [this] {
        QAbstractItemModel* model = m_table->model();
        if (!model) return;
        connect(model, &QAbstractItemModel::modelReset, this, &ColumnFitter::fitSoon, Qt::UniqueConnection);
        connect(model, &QAbstractItemModel::layoutChanged, this, &ColumnFitter::fitSoon, Qt::UniqueConnection);
        connect(model, &QAbstractItemModel::rowsInserted, this, &ColumnFitter::fitSoon, Qt::UniqueConnection);
        connect(model, &QAbstractItemModel::rowsRemoved, this, &ColumnFitter::fitSoon, Qt::UniqueConnection);
        connect(model, &QAbstractItemModel::columnsInserted, this, &ColumnFitter::fitSoon, Qt::UniqueConnection);
        connect(model, &QAbstractItemModel::dataChanged, this, &ColumnFitter::fitSoon, Qt::UniqueConnection);
        connect(model, &QAbstractItemModel::headerDataChanged, this, &ColumnFitter::fitSoon, Qt::UniqueConnection);
    };
    connectModel();
    fitSoon();
}

void ColumnFitter::fitSoon() {
    // A burst of model signals (a reset, then rows) gives one fit, once the view has its rows.
    if (m_pending) return;
    m_pending = true;
    QTimer::singleShot(0, this, [this] {
        m_pending = false;
        fit();
    });
}

int ColumnFitter::neededWidth(const QTableView* table, const QModelIndex& index) {
    const QString text = index.data(Qt::DisplayRole).toString();
    const QFont font = index.data(Qt::FontRole).canConvert<QFont>() ? index.data(Qt::FontRole).value<QFont>() : table->font();
    int width = QFontMetrics(font).horizontalAdvance(text) + cellPadding(table);
    if (index.data(Qt::DecorationRole).isValid()) width += table->iconSize().isValid() ? table->iconSize().width() + 4 : 20;
    if (index.flags() & Qt::ItemIsUserCheckable) width += 20;
    return width;
}

int ColumnFitter::neededHeadingWidth(const QTableView* table, int column) {
    QHeaderView* header = table->horizontalHeader();
    return std::max(header->sectionSizeHint(column), 0);
}

QString ColumnFitter::toolTip(const QTableView* table, const QModelIndex& index) {
    if (!index.isValid()) return {};
    const QString own = index.data(Qt::ToolTipRole).toString();
    if (!own.isEmpty()) return own;
    if (neededWidth(table, index) <= table->columnWidth(index.column())) return {};
    return index.data(Qt::DisplayRole).toString();
}

QString ColumnFitter::headingToolTip(const QTableView* table, int column) {
    const QAbstractItemModel* model = table->model();
    if (!model || column < 0) return {};
    const QString own = model->headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString();
    if (!own.isEmpty()) return own;
    if (neededHeadingWidth(table, column) <= table->horizontalHeader()->sectionSize(column)) return {};
    return model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
}

void ColumnFitter::fit() {
    const QAbstractItemModel* model = m_table->model();
    QHeaderView* header = m_table->horizontalHeader();
    if (!model || model->columnCount() == 0) return;
    const int columns = model->columnCount();
    // Content widths: the heading, and the rows QHeaderView would sample for ResizeToContents
    // (its resizeContentsPrecision: the first 1000 rows by default), so a long table stays cheap.
    std::vector<int> wanted(columns, 0);
    const int rows = std::min(model->rowCount(), std::max(header->resizeContentsPrecision(), 1));
    for (int c = 0; c < columns; ++c) {
        if (m_table->isColumnHidden(c)) continue;
        int w = neededHeadingWidth(m_table, c);
        for (int r = 0; r < rows; ++r) w = std::max(w, neededWidth(m_table, model->index(r, c)));
        wanted[c] = w;
    }
    // The space: the viewport, as wide as the view would be with its vertical scroll bar shown.
    int available = m_table->viewport()->width();
    if (!m_table->verticalScrollBar()->isVisible() && m_table->verticalScrollBarPolicy() != Qt::ScrollBarAlwaysOff &&
        rows > 0 && m_table->rowHeight(0) * model->rowCount() > m_table->viewport()->height())
        available -= m_table->verticalScrollBar()->sizeHint().width();
    const long total = std::accumulate(wanted.begin(), wanted.end(), 0L);
    std::vector<int> widths = wanted;
    if (available > 0 && total > available) {
        // The widest columns give up width together: the largest cap under which all fit (or the
        // floor, when even that does not fit and the view must scroll).
        std::vector<int> sorted = wanted;
        std::sort(sorted.begin(), sorted.end());
        long below = 0;  // the sum of the columns narrower than the cap
        int cap = kMinimumColumn;
        for (int i = 0; i < columns; ++i) {
            const int rest = columns - i;
            const long candidate = (available - below) / rest;
            if (candidate <= sorted[i]) {
                cap = std::max<int>(kMinimumColumn, int(candidate));
                break;
            }
            below += sorted[i];
        }
        for (int& w : widths) w = std::min(w, cap);
    }
    for (int c = 0; c < columns; ++c) {
        if (m_table->isColumnHidden(c)) continue;
        // Fixed widths from here on: the fitter alone sizes the columns (a ResizeToContents section
        // would ignore the cap and push the table wider than its view).
        if (header->sectionResizeMode(c) != QHeaderView::Interactive && header->sectionResizeMode(c) != QHeaderView::Fixed)
            header->setSectionResizeMode(c, QHeaderView::Interactive);
        header->resizeSection(c, widths[c]);
    }
}

bool ColumnFitter::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Resize && watched == m_table->viewport()) {
        fitSoon();
    } else if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        QHeaderView* header = m_table->horizontalHeader();
        QString text;
        if (watched == m_table->viewport()) text = toolTip(m_table, m_table->indexAt(help->pos()));
        else if (watched == header->viewport() || watched == header) text = headingToolTip(m_table, header->logicalIndexAt(help->pos()));
        else return false;
        if (text.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(help->globalPos(), text, static_cast<QWidget*>(watched));
        return true;
    }
    return false;
}

} // namespace spyglass::widgets
