// The bit-flag lookup path, step by step. It repeats what bitFlagValueIndex does with every
// intermediate kept, and cross-checks its answer against it so the picture never disagrees with
// the library.
#include "bitflaglookup.h"

#include "spyglass/error.h"

#include <QStringList>

#include <bitset>

namespace spyglass::app {

namespace {
int popcount(std::uint64_t word) { return int(std::bitset<64>(word).count()); }
} // namespace

BitFlagLookupPath lookupBitFlag(const BitFlagMatrix<double>& m, Index i, Index j) {
    if (i < 0 || i >= m.rows || j < 0 || j >= m.cols)
        throw InputError(QStringLiteral("element (%1, %2) lies outside the %3 x %4 matrix")
                             .arg(i).arg(j).arg(m.rows).arg(m.cols).toStdString());
    BitFlagLookupPath p;
    p.row = i;
    p.col = j;
    p.rowMajor = m.order == BitFlagOrder::RowMajor;
    p.line = p.rowMajor ? i : j;
    p.position = p.rowMajor ? j : i;
    p.wordBits = m.wordBits;
    p.word = p.position / m.wordBits;
    p.bit = int(p.position % m.wordBits);
    p.wordValue = m.word(p.line, p.word);
    p.flagSet = (p.wordValue >> p.bit) & 1u;
    p.lineStart = m.lineStart[std::size_t(p.line)];
    p.lineEnd = m.lineStart[std::size_t(p.line) + 1];
    p.usedPrefixCount = m.withPrefixCounts;
    if (m.withPrefixCounts) {
        p.countBeforeWord = m.wordPrefix[std::size_t(p.line) * std::size_t(m.wordsPerLine) + std::size_t(p.word)];
    } else {
        for (Index w = 0; w < p.word; ++w) p.countBeforeWord += popcount(m.word(p.line, w));
    }
    p.countInWord = popcount(p.wordValue & ((std::uint64_t(1) << p.bit) - 1));
    if (p.flagSet) {
        p.valueIndex = p.lineStart + p.countBeforeWord + p.countInWord;
        p.value = m.values[std::size_t(*p.valueIndex)];
    }
    if (p.valueIndex != bitFlagValueIndex(m, i, j))
        throw Error("bit-flag lookup path disagrees with bitFlagValueIndex at (" + std::to_string(i) + ", " +
                    std::to_string(j) + ")");
    return p;
}

QString BitFlagLookupPath::describe() const {
    const QString lineName = rowMajor ? QStringLiteral("row") : QStringLiteral("column");
    const int hexDigits = wordBits / 4;
    QStringList steps;
    steps << QStringLiteral("Element (%1, %2), 0-based: %3 %4, position %5 in it.")
                 .arg(row).arg(col).arg(lineName).arg(line).arg(position);
    steps << QStringLiteral("1. Flag: word %1 of the %2 (%3-bit words), bit %4 = %5 mod %3.  F = 0x%6;  bit %4 is %7.")
                 .arg(word).arg(lineName).arg(wordBits).arg(bit).arg(position)
                 .arg(wordValue, hexDigits, 16, QLatin1Char('0'))
                 .arg(flagSet ? QStringLiteral("1 (stored)") : QStringLiteral("0"));
    if (!flagSet) {
        steps << QStringLiteral("2. The flag is clear: (%1, %2) is not stored; its value is 0. P, popcount and M are not read.")
                     .arg(row).arg(col);
        return steps.join(QLatin1Char('\n'));
    }
    steps << QStringLiteral("2. P[%1] = %2  (the %3's values are M[%2 .. %4), P[%5] = %4).")
                 .arg(line).arg(lineStart).arg(lineName).arg(lineEnd).arg(line + 1);
    if (usedPrefixCount)
        steps << QStringLiteral("3. Prefix count of word %1 = %2 (stored), + popcount(F & (2^%3 - 1)) = %4 within the word.")
                     .arg(word).arg(countBeforeWord).arg(bit).arg(countInWord);
    else if (word > 0)
        steps << QStringLiteral("3. popcount of words 0..%1 = %2 (no prefix counts: every earlier word is counted), "
                                "+ popcount(F & (2^%3 - 1)) = %4 within the word.")
                     .arg(word - 1).arg(countBeforeWord).arg(bit).arg(countInWord);
    else
        steps << QStringLiteral("3. popcount(F & (2^%1 - 1)) = %2 set bits before it in the word.").arg(bit).arg(countInWord);
    steps << QStringLiteral("4. Index into M = %1 + %2 + %3 = %4;  M[%4] = %5.")
                 .arg(lineStart).arg(countBeforeWord).arg(countInWord).arg(*valueIndex).arg(value, 0, 'g', 10);
    return steps.join(QLatin1Char('\n'));
}

} // namespace spyglass::app
