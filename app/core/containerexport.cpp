// Segmented-DIA and bit-flag exports: build, serialise, read the bytes back, compare, write.
#include "containerexport.h"

#include "checkedwrite.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"

#include <algorithm>

#include <cstdio>

namespace spyglass::app {

namespace {

void throwIfCancelled(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load()) throw CancelledError();
}

std::size_t csrBytesOf(Index rows, Count entries) {
    return std::size_t(entries) * (sizeof(double) + sizeof(Index)) + (std::size_t(rows) + 1) * sizeof(Count);
}

// The matrix's entries once, as the format sees them: symmetry expanded, duplicates summed, and for
// a pattern every entry 1 (a pattern entry listed twice is still one entry).
CsrMatrix<double> entriesOf(const Matrix& matrix, Field field) {
    CsrMatrix<double> csr = toCsr<double>(matrix);
    if (field == Field::Pattern) csr.values.assign(csr.values.size(), 1.0);
    return csr;
}

bool sameFormat(const SegmentedDiaMatrix<double>& a, const SegmentedDiaMatrix<double>& b) {
    // Values compared as written: the container stores them at full width (or 0/1 for a pattern).
    return a.rows == b.rows && a.cols == b.cols && a.threshold == b.threshold && a.nonzeros == b.nonzeros &&
           a.segmentFirstRow == b.segmentFirstRow && a.segmentOffsetStart == b.segmentOffsetStart && a.offsets == b.offsets &&
           a.segmentValueStart == b.segmentValueStart && a.values == b.values && a.blockStart == b.blockStart &&
           a.blockSegments == b.blockSegments;
}

bool sameFormat(const BitFlagMatrix<double>& a, const BitFlagMatrix<double>& b) {
    return a.rows == b.rows && a.cols == b.cols && a.order == b.order && a.nonzeros == b.nonzeros && a.wordBits == b.wordBits &&
           a.wordsPerLine == b.wordsPerLine && a.values == b.values && a.flags32 == b.flags32 && a.flags64 == b.flags64 &&
           a.lineStart == b.lineStart && a.withPrefixCounts == b.withPrefixCounts && a.wordPrefix == b.wordPrefix;
}

std::string formatted(const char* format, double a, double b, double c, double d, double e = 0) {
    char text[256];
    std::snprintf(text, sizeof text, format, a, b, c, d, e);
    return text;
}

// The steps every export shares: serialise, write through the checked writer (the file read back
// from the disk must parse, readBack(bytes, source), as the format it was made from), and the
// report's counts. A mismatch is a bug and nothing is written.
template <typename Format, typename ReadBack>
ContainerExportReport writeContainer(const Format& format, const Container& container, ContainerEncoding encoding, const char* name,
                                     const QString& path, ReadBack readBack, const std::atomic<bool>* cancel) {
    const std::string bytes = serializeContainer(container);
    throwIfCancelled(cancel);
    writeCheckedBytes(
        path, std::string(name) + " container", bytes,
        [&](const std::string& written, const std::string& source) {
            return sameFormat(readBack(written, source), format) ? std::string() : std::string("another format");
        },
        cancel);
    ContainerExportReport report;
    report.encoding = encoding;
    report.fileBytes = bytes.size();
    report.entries = format.nonzeros;
    report.csrBytes = csrBytesOf(format.rows, format.nonzeros);
    return report;
}

} // namespace

Field containerFieldFor(const Matrix& matrix, const std::string& source) {
    if (matrix.isComplex())
        throw InputError(source + ": complex matrices have no segmented-DIA or bit-flag container: the container holds real, integer or "
                                  "pattern values only (docs/container-format.md)");
    return matrix.field == Field::Pattern ? Field::Pattern : matrix.field == Field::Integer ? Field::Integer : Field::Real;
}

Field segmentedDiaFieldFor(const Matrix& matrix, const SegmentedDiaMatrix<double>& format, const std::string& source) {
    const Field field = containerFieldFor(matrix, source);
    if (field != Field::Pattern) return field;
    const bool onlyOnes = std::all_of(format.values.begin(), format.values.end(), [](double v) { return v == 0.0 || v == 1.0; });
    return onlyOnes ? Field::Pattern : Field::Real;
}

void checkBitFlagBudget(const Matrix& m, const std::string& source) {
    const double flagBytes = double(m.rows) * double(m.cols) / 8;
    if (flagBytes > 4e9)
        throw InputError(source + ": " + std::to_string(m.rows) + " x " + std::to_string(m.cols) + " needs " +
                         std::to_string(static_cast<long long>(flagBytes / 1e6)) + " MB of flag bits; bit-flag storage suits "
                         "matrices whose rows x cols fit a few GB of bits");
}

QString ContainerExportReport::describe(const QString& path) const {
    return QStringLiteral("%1: %2 container, %3 entries, %4 bytes (CSR %5 bytes); %6")
        .arg(path, QString::fromLatin1(toString(encoding)))
        .arg(entries)
        .arg(qulonglong(fileBytes))
        .arg(qulonglong(csrBytes))
        .arg(QString::fromStdString(details));
}

ContainerExportReport writeSegmentedDiaExport(const SegmentedDiaMatrix<double>& format, Field field, const QString& path,
                                              const std::string& note, const std::atomic<bool>* cancel) {
    ContainerExportReport report = writeContainer(
        format, segmentedDiaToContainer(format, field, note), ContainerEncoding::SegmentedDia, "segmented-DIA", path,
        [](const std::string& bytes, const std::string& target) { return parseSegmentedDiaContainer(bytes, target); }, cancel);
    const SegmentedDiaStats stats = computeSegmentedDiaStats(format);
    report.details = formatted("%.0f segments in %.0f blocks, %.0f diagonals, padding ratio %.3f, CSR remainder %.0f nonzeros",
                               double(stats.segments), double(stats.blocks), double(stats.totalDiagonals), stats.paddingRatio,
                               double(stats.remainderNonzeros));
    return report;
}

ContainerExportReport writeBitFlagExport(const BitFlagMatrix<double>& format, Field field, const QString& path,
                                         const std::string& note, const std::atomic<bool>* cancel) {
    ContainerExportReport report = writeContainer(
        format, bitFlagToContainer(format, field, note), ContainerEncoding::BitFlag, "bit-flag", path,
        [](const std::string& bytes, const std::string& target) { return parseBitFlagContainer(bytes, target); }, cancel);
    report.details = std::string(toString(format.order)) + ", " + std::to_string(format.wordsPerLine) + " x " +
                     std::to_string(format.wordBits) + "-bit flag words per line" +
                     (format.withPrefixCounts ? ", with prefix counts" : "") +
                     (field == Field::Pattern ? ", no values (pattern)" : "");
    return report;
}

ContainerExportReport exportSegmentedDia(const Matrix& matrix, const std::string& source, const SegmentedDiaOptions& options,
                                         const QString& path, const std::string& note, const std::atomic<bool>* cancel) {
    const Field field = containerFieldFor(matrix, source);
    const CooMatrix<double> coo = csrToCoo(entriesOf(matrix, field));
    throwIfCancelled(cancel);
    const SegmentedDiaMatrix<double> format = buildSegmentedDia(coo, options);
    throwIfCancelled(cancel);
    return writeSegmentedDiaExport(format, field, path, note, cancel);
}

ContainerExportReport exportBitFlag(const Matrix& matrix, const std::string& source, BitFlagOrder order, bool prefixCounts,
                                    const QString& path, const std::string& note, const std::atomic<bool>* cancel) {
    const Field field = containerFieldFor(matrix, source);
    checkBitFlagBudget(matrix, source);
    const CsrMatrix<double> csr = entriesOf(matrix, field);
    throwIfCancelled(cancel);
    BitFlagOptions options;
    options.order = order;
    options.prefixCounts = prefixCounts;
    options.keepExplicitZeros = true;  // the file decodes to the stored structure, zeros included
    const BitFlagMatrix<double> format = encodeBitFlag(csr, options);
    throwIfCancelled(cancel);
    return writeBitFlagExport(format, field, path, note, cancel);
}

} // namespace spyglass::app
