#pragma once
// One line (row, or column for column-major) of a bit-flag matrix drawn as its flag words: one strip
// of 32 or 64 cells per word, low bit on the left, set bits filled, bits past the line's end hatched,
// word boundaries framed, each word's popcount (and stored prefix count) at its right. A selected
// position shows its lookup path: the bits counted before it (within the word, and the earlier words
// when there are no prefix counts) in orange, the element outlined in red. Click a cell to select it.
#include "core/bitflagjob.h"

#include <QVector>
#include <QWidget>

#include <memory>
#include <optional>

namespace spyglass::widgets {

class BitFlagStripView : public QWidget {
    Q_OBJECT
public:
    explicit BitFlagStripView(QWidget* parent = nullptr);

    // Shows line 0 of the matrix (nothing for null); clears the selection.
    void setMatrix(std::shared_ptr<const BitFlagMatrix<double>> matrix);
    void setLine(Index line);
    Index line() const { return m_line; }
    void setSelectedPosition(std::optional<Index> position);
    std::optional<Index> selectedPosition() const { return m_selected; }

    // What the strip draws, for tests and the panel: positions drawn as set, and where a cell is.
    QVector<Index> setPositions() const;
    bool isSetAt(Index position) const;
    QRect cellRect(Index position) const;
    int wordsShown() const { return int(m_words.size()); }
    Index wordsInLine() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    // A cell inside the line was clicked: (line, position) in the matrix's line terms.
    void positionClicked(spyglass::Index line, spyglass::Index position);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool event(QEvent* event) override;

private:
    void loadLine();
    void updateGeometryForLine();
    std::optional<Index> positionAt(const QPoint& point) const;
    int rowTop(int word) const;
    QString describePosition(Index position) const;

    std::shared_ptr<const BitFlagMatrix<double>> m_matrix;
    Index m_line = 0;
    std::optional<Index> m_selected;
    QVector<quint64> m_words;      // the line's flag words (at most kMaxWords)
    QVector<quint32> m_prefix;     // stored prefix counts, when the matrix has them
    int m_cellWidth = 11;
};

} // namespace spyglass::widgets
