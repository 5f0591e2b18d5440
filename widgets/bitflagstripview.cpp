#include "bitflagstripview.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <bitset>

namespace spyglass::widgets {

namespace {
// A line of 2^18 elements is far more than anyone reads cell by cell; say so instead of painting
// hundreds of thousands of cells.
constexpr int kMaxWords = 4096;
constexpr int kLabelWidth = 82;   // "w12  768–831"
constexpr int kInfoWidth = 84;    // "12 · 345" (popcount · prefix)
constexpr int kRulerHeight = 18;
constexpr int kCellHeight = 18;
constexpr int kRowGap = 7;
constexpr int kMargin = 6;
constexpr int kMinCell = 5, kMaxCell = 22;

const QColor kSet(45, 110, 200);
const QColor kCounted(240, 140, 30);
const QColor kCountedEarlier(250, 205, 140);
const QColor kSelected(215, 25, 25);

int popcount(quint64 word) { return int(std::bitset<64>(word).count()); }
} // namespace

BitFlagStripView::BitFlagStripView(QWidget* parent) : QWidget(parent) {
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void BitFlagStripView::setMatrix(std::shared_ptr<const BitFlagMatrix<double>> matrix) {
    m_matrix = std::move(matrix);
    m_line = 0;
    m_selected.reset();
    loadLine();
}

void BitFlagStripView::setLine(Index line) {
    if (!m_matrix || line < 0 || line >= m_matrix->lines()) return;
    if (line != m_line) m_selected.reset();
    m_line = line;
    loadLine();
}

void BitFlagStripView::setSelectedPosition(std::optional<Index> position) {
    m_selected = position;
    update();
}

Index BitFlagStripView::wordsInLine() const { return m_matrix ? m_matrix->wordsPerLine : 0; }

void BitFlagStripView::loadLine() {
    m_words.clear();
    m_prefix.clear();
    if (m_matrix && m_matrix->lines() > 0) {
        const Index shown = std::min<Index>(m_matrix->wordsPerLine, kMaxWords);
        for (Index w = 0; w < shown; ++w) {
            m_words << m_matrix->word(m_line, w);
            if (m_matrix->withPrefixCounts)
                m_prefix << m_matrix->wordPrefix[std::size_t(m_line) * std::size_t(m_matrix->wordsPerLine) + std::size_t(w)];
        }
    }
    updateGeometryForLine();
    update();
}

void BitFlagStripView::updateGeometryForLine() {
    updateGeometry();
    setMinimumHeight(sizeHint().height());
    setMinimumWidth(minimumSizeHint().width());
}

QSize BitFlagStripView::sizeHint() const {
    const int bits = m_matrix ? m_matrix->wordBits : 64;
    const int rows = std::max(1, int(m_words.size()));
    const bool truncated = m_matrix && m_matrix->wordsPerLine > kMaxWords;
    return {2 * kMargin + kLabelWidth + bits * 11 + kInfoWidth,
            kMargin + kRulerHeight + rows * (kCellHeight + kRowGap) + (truncated ? 20 : 0) + kMargin};
}

QSize BitFlagStripView::minimumSizeHint() const {
    const int bits = m_matrix ? m_matrix->wordBits : 64;
    return {2 * kMargin + kLabelWidth + bits * kMinCell + kInfoWidth, sizeHint().height()};
}

void BitFlagStripView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    const int bits = m_matrix ? m_matrix->wordBits : 64;
    m_cellWidth = std::clamp((width() - 2 * kMargin - kLabelWidth - kInfoWidth) / bits, kMinCell, kMaxCell);
}

int BitFlagStripView::rowTop(int word) const { return kMargin + kRulerHeight + word * (kCellHeight + kRowGap); }

QRect BitFlagStripView::cellRect(Index position) const {
    if (!m_matrix) return {};
    const int bits = m_matrix->wordBits;
    const int word = int(position / bits), bit = int(position % bits);
    if (word >= m_words.size()) return {};
    return QRect(kMargin + kLabelWidth + bit * m_cellWidth, rowTop(word), m_cellWidth, kCellHeight);
}

bool BitFlagStripView::isSetAt(Index position) const {
    if (!m_matrix || position < 0) return false;
    const int bits = m_matrix->wordBits;
    const int word = int(position / bits);
    if (word >= m_words.size()) return false;
    return (m_words[word] >> (position % bits)) & 1u;
}

QVector<Index> BitFlagStripView::setPositions() const {
    QVector<Index> out;
    if (!m_matrix) return out;
    const int bits = m_matrix->wordBits;
    for (int w = 0; w < m_words.size(); ++w)
        for (quint64 word = m_words[w]; word; word &= word - 1)
            out << Index(w * bits + __builtin_ctzll(word));
    return out;
}

std::optional<Index> BitFlagStripView::positionAt(const QPoint& point) const {
    if (!m_matrix) return std::nullopt;
    const int x = point.x() - kMargin - kLabelWidth, y = point.y() - kMargin - kRulerHeight;
    if (x < 0 || y < 0) return std::nullopt;
    const int bit = x / m_cellWidth, word = y / (kCellHeight + kRowGap);
    if (bit >= m_matrix->wordBits || word >= m_words.size() || y % (kCellHeight + kRowGap) >= kCellHeight) return std::nullopt;
    const Index position = Index(word) * m_matrix->wordBits + bit;
    if (position >= m_matrix->lineLength()) return std::nullopt;
    return position;
}

QString BitFlagStripView::describePosition(Index position) const {
    const bool rowMajor = m_matrix->order == BitFlagOrder::RowMajor;
    const Index i = rowMajor ? m_line : position, j = rowMajor ? position : m_line;
    if (!isSetAt(position)) return tr("(%1, %2): flag 0, not stored").arg(i).arg(j);
    // The same count the format does: set bits of the line before this one.
    Count before = 0;
    const int bits = m_matrix->wordBits;
    for (int w = 0; w <= int(position / bits); ++w) {
        quint64 word = m_words[w];
        if (w == int(position / bits)) word &= (quint64(1) << (position % bits)) - 1;
        before += popcount(word);
    }
    const Count k = m_matrix->lineStart[std::size_t(m_line)] + before;
    return tr("(%1, %2): flag 1, M[%3] = %4").arg(i).arg(j).arg(k).arg(m_matrix->values[std::size_t(k)], 0, 'g', 8);
}

bool BitFlagStripView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const std::optional<Index> position = positionAt(help->pos());
        if (position) QToolTip::showText(help->globalPos(), describePosition(*position), this);
        else QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void BitFlagStripView::mousePressEvent(QMouseEvent* event) {
    const std::optional<Index> position = positionAt(event->position().toPoint());
    if (event->button() != Qt::LeftButton || !position) return QWidget::mousePressEvent(event);
    m_selected = position;
    update();
    emit positionClicked(m_line, *position);
}

void BitFlagStripView::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    p.fillRect(event->rect(), palette().base());
    if (!m_matrix || m_words.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(kMargin, kMargin, 0, 0), Qt::AlignLeft | Qt::AlignTop, tr("No bit-flag layout yet."));
        return;
    }
    const BitFlagMatrix<double>& m = *m_matrix;
    const int bits = m.wordBits;
    const int left = kMargin + kLabelWidth, stripWidth = bits * m_cellWidth;
    const QString posName = m.order == BitFlagOrder::RowMajor ? tr("cols") : tr("rows");

    // Ruler: bit numbers within a word, every 8 bits.
    QFont small = font();
    small.setPointSizeF(std::max(6.5, small.pointSizeF() - 1.5));
    p.setFont(small);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(kMargin, kMargin, kLabelWidth - 4, kRulerHeight), Qt::AlignLeft | Qt::AlignVCenter, tr("word  %1").arg(posName));
    for (int b = 0; b < bits; b += 8)
        p.drawText(QRect(left + b * m_cellWidth, kMargin, 8 * m_cellWidth, kRulerHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   QStringLiteral("bit %1").arg(b));
    p.drawText(QRect(left + stripWidth + 6, kMargin, kInfoWidth, kRulerHeight), Qt::AlignLeft | Qt::AlignVCenter,
               m.withPrefixCounts ? tr("popcount · prefix") : tr("popcount"));

    const int selWord = m_selected ? int(*m_selected / bits) : -1;
    const int selBit = m_selected ? int(*m_selected % bits) : -1;
    const int firstRow = std::max(0, (event->rect().top() - kMargin - kRulerHeight) / (kCellHeight + kRowGap));
    const int lastRow = std::min<int>(m_words.size() - 1, (event->rect().bottom() - kMargin - kRulerHeight) / (kCellHeight + kRowGap));
    for (int w = firstRow; w <= lastRow; ++w) {
        const int top = rowTop(w);
        const quint64 word = m_words[w];
        const Index firstPos = Index(w) * bits;
        const Index lastPos = std::min<Index>(firstPos + bits, m.lineLength()) - 1;
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(kMargin, top, kLabelWidth - 6, kCellHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   lastPos >= firstPos ? QStringLiteral("w%1  %2–%3").arg(w).arg(firstPos).arg(lastPos) : QStringLiteral("w%1").arg(w));
        for (int b = 0; b < bits; ++b) {
            const QRect cell(left + b * m_cellWidth, top, m_cellWidth, kCellHeight);
            const Index position = firstPos + b;
            const bool set = (word >> b) & 1u;
            if (position >= m.lineLength()) {
                p.fillRect(cell, QColor(215, 215, 215));
                p.fillRect(cell, QBrush(QColor(160, 160, 160), Qt::BDiagPattern));
            } else if (set) {
                // The lookup path: set bits counted before the selected one.
                const bool countedHere = w == selWord && b < selBit;
                const bool countedEarlier = !m.withPrefixCounts && selWord >= 0 && w < selWord;
                p.fillRect(cell, countedHere ? kCounted : countedEarlier ? kCountedEarlier : kSet);
            }
            p.setPen(QColor(200, 200, 200));
            p.drawLine(cell.topRight(), cell.bottomRight());
        }
        // Byte ticks, then the word's frame: the word boundary.
        p.setPen(QPen(QColor(120, 120, 120), 1));
        for (int b = 8; b < bits; b += 8) p.drawLine(left + b * m_cellWidth, top, left + b * m_cellWidth, top + kCellHeight);
        p.setPen(QPen(QColor(30, 30, 30), 2));
        p.drawRect(QRect(left, top, stripWidth, kCellHeight));
        QString info = QStringLiteral("%1").arg(popcount(word));
        if (m.withPrefixCounts) info += QStringLiteral(" · %1").arg(m_prefix.value(w));
        if (w == selWord && m.withPrefixCounts) {
            p.fillRect(QRect(left + stripWidth + 3, top, kInfoWidth - 6, kCellHeight), kCountedEarlier);
        }
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(left + stripWidth + 6, top, kInfoWidth - 8, kCellHeight), Qt::AlignLeft | Qt::AlignVCenter, info);
    }
    if (m_selected && selWord < m_words.size()) {
        p.setPen(QPen(kSelected, 3));
        p.setBrush(Qt::NoBrush);
        p.drawRect(cellRect(*m_selected).adjusted(-1, -1, 1, 1));
    }
    if (m.wordsPerLine > kMaxWords) {
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(kMargin, rowTop(int(m_words.size())), width(), 20), Qt::AlignLeft | Qt::AlignVCenter,
                   tr("… the first %1 of %2 words are drawn").arg(kMaxWords).arg(m.wordsPerLine));
    }
}

} // namespace spyglass::widgets
