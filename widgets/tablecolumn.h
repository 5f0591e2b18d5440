#pragma once
// One column of a RowTableModel: the header's title and tooltip, and where the column's cells align
// when the row does not say otherwise (none: the style's default).
#include <QString>
#include <Qt>

namespace spyglass::widgets {

// The two alignments the tables use: text reads from the left, figures line up on the right.
inline constexpr Qt::Alignment kAlignText = Qt::AlignLeft | Qt::AlignVCenter;
inline constexpr Qt::Alignment kAlignFigure = Qt::AlignRight | Qt::AlignVCenter;

struct TableColumn {
    QString title;
    QString headerTip{};  // empty: no tooltip (columns are often listed by title alone)
    Qt::Alignment alignment = {};
};

// Most columns need no more than a title and one of the two alignments.
inline TableColumn textColumn(const QString& title) { return {title, {}, kAlignText}; }
inline TableColumn figureColumn(const QString& title) { return {title, {}, kAlignFigure}; }

} // namespace spyglass::widgets
