// Bit-flag compute service: pre-flight byte bounds, encoding, the operations on each backend and
// their checks (bitflagcheck.h).
#include "bitflagjob.h"

#include "bitflagcheck.h"
#include "bitflagjob_steps.h"
#include "bitflagmultiplyverdict.h"
#include "bitflagops.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cmath>

namespace spyglass::app {

namespace {

using namespace bitflagjob_steps;

QString bytesText(double bytes) {
    if (bytes >= 1e9) return QStringLiteral("%1 GB").arg(bytes / 1e9, 0, 'f', 2);
    if (bytes >= 1e6) return QStringLiteral("%1 MB").arg(bytes / 1e6, 0, 'f', 1);
    if (bytes >= 1e3) return QStringLiteral("%1 kB").arg(bytes / 1e3, 0, 'f', 1);
    return QStringLiteral("%1 B").arg(bytes, 0, 'f', 0);
}

QString shapeText(Index rows, Index cols) { return QStringLiteral("%1 × %2").arg(rows).arg(cols); }

[[noreturn]] void refuse(const QString& message) { throw InputError(message.toStdString()); }

void requireReal(const std::shared_ptr<const Matrix>& m, const QString& name) {
    if (!m) refuse(QStringLiteral("no matrix is open"));
    if (m->isComplex()) refuse(QStringLiteral("%1 is complex; the bit-flag format holds real values").arg(name));
}

void checkOperandBytes(const Matrix& m, const QString& name, BitFlagOrder order, bool prefix, double maxBytes) {
    const BitFlagBytes bytes = estimateBitFlagBytes(m.rows, m.cols, m.expandedEntries(), order, prefix);
    if (bytes.total() > maxBytes)
        refuse(QStringLiteral("%1 (%2, %3 entries) would take %4 in bit-flag form (flag bits alone %5: one bit per "
                              "element whatever the entries; CSR needs %6); this panel encodes up to %7")
                   .arg(name, shapeText(m.rows, m.cols))
                   .arg(m.expandedEntries())
                   .arg(bytesText(bytes.total()), bytesText(bytes.flags), bytesText(csrBytes(m.rows, m.expandedEntries())),
                        bytesText(maxBytes)));
}

void applyComparison(BitFlagOpRun& run, const Comparison& c) {
    run.entries = c.entries;
    run.samePattern = c.samePattern;
    run.maxDifference = c.maxDifference;
    run.worstBoundRatio = c.worstBoundRatio;
    run.agrees = c.agrees();
    run.problem = c.firstProblem;
}

BitFlagOpResult runArithmetic(const BitFlagOpRequest& request, const Matrix& a, const Matrix& b, bool sameOperand,
                              Reporter& report, const std::atomic<bool>* cancel) {
    const bool multiply = request.op == BitFlagOp::Multiply;
    const double sign = request.op == BitFlagOp::Subtract ? -1.0 : 1.0;
    BitFlagOpResult result;
    result.op = request.op;
    result.rows = a.rows;
    result.cols = multiply ? b.cols : a.cols;

    report.stage(QStringLiteral("Encoding the operands"), 0, 10);
    BitFlagOptions first, second;
    first.prefixCounts = second.prefixCounts = request.prefixCounts;
    // The seed multiplies a row-major A by a column-major B: row bits AND column bits.
    if (multiply) second.order = BitFlagOrder::ColumnMajor;
    const CsrMatrix<double> csrA = toCsr<double>(a);
    report.fraction(0.3);
    const BitFlagMatrix<double> bfA = encodeBitFlag(csrA, first);
    report.fraction(0.6);
    const BitFlagMatrix<double> bfB =
        sameOperand && !multiply ? bfA : encodeBitFlag(sameOperand ? csrA : toCsr<double>(b), second);
    // The oracle and the vendor get what the bit-flag form holds (stored zeros dropped), so that all
    // backends see the same structure.
    const CsrMatrix<double> inA = decodeBitFlag(bfA), inB = decodeBitFlag(bfB);

    BitFlagOpRun reference;
    reference.name = QStringLiteral("CPU reference (bit-flag)");
    reference.checkedAgainst = QStringLiteral("fp64 CSR oracle");
    BitFlagMatrix<double> refResult;
    report.stage(QStringLiteral("CPU reference"), 10, 60);
    attempt(reference, [&] {
        BitFlagRunOptions control;
        control.cancel = cancel;
        control.progress = report.callback();
        reference.timing = cpuTimed([&] {
            refResult = bitFlagArithmetic(request.op, bfA, bfB, control);
        });
    });

    report.stage(QStringLiteral("Checking against an fp64 CSR computation"), 60, 72);
    const OracleResult oracle = multiply ? oracleMultiply(inA, inB, cancel, report.callback()) : oracleAdd(inA, inB, sign);
    // Terms summed per entry, plus the rounding of each input to the backend's precision.
    const double terms = multiply ? double(std::max<Index>(oracle.maxTerms, 1)) + 2 : 2;
    const double u64 = unitRoundoff64(), u32 = unitRoundoff32();
    CsrMatrix<double> refCsr;
    if (reference.error.isEmpty()) {
        refCsr = decodeBitFlag(refResult);
        applyComparison(reference, compareToOracle(refCsr, oracle.value, oracle, 2 * gamma(terms, u64)));
        result.product = std::make_shared<const CsrMatrix<double>>(refCsr);
    }
    result.runs << reference;

    auto checkAgainstReference = [&](BitFlagOpRun& run, const CsrMatrix<double>& got, double u) {
        if (!reference.error.isEmpty() || !reference.agrees) {
            run.entries = got.nnz();
            run.problem = QStringLiteral("not checked: the CPU reference did not pass its own check");
            return;
        }
        applyComparison(run, compareToOracle(got, refCsr, oracle, gamma(terms, u) + gamma(terms, u64)));
    };

    if (request.cuda) {
        report.stage(QStringLiteral("CUDA bit-flag kernels"), 72, 86);
        BitFlagOpRun run;
        run.name = QStringLiteral("CUDA bit-flag kernels");
        run.checkedAgainst = QStringLiteral("CPU reference");
        attempt(run, [&] {
            BitFlagMatrix<double> c;
            BitFlagRunOptions cuda;
            cuda.backend = BitFlagBackend::Cuda;
            cuda.measured = &run.timing;
            c = bitFlagArithmetic(request.op, bfA, bfB, cuda);
            checkAgainstReference(run, decodeBitFlag(c), u64);
        });
        result.runs << run;
    }
    if (request.vendor) {
        report.stage(multiply ? QStringLiteral("cuSPARSE SpGEMM") : QStringLiteral("cuSPARSE csrgeam2"), 86, 99);
        BitFlagOpRun run;
        run.name = QStringLiteral("cuSPARSE CSR (fp32)");
        run.checkedAgainst = QStringLiteral("CPU reference");
        attempt(run, [&] {
            const CsrMatrix<float> fA = convertValues<float>(inA), fB = convertValues<float>(inB);
            CsrMatrix<float> c;
            BitFlagRunOptions vendor;
            vendor.backend = BitFlagBackend::Vendor;
            vendor.measured = &run.timing;
            c = vendorArithmetic(request.op, fA, fB, vendor);
            checkAgainstReference(run, convertValues<double>(c), u32);
        });
        result.runs << run;
    }
    if (multiply && result.runs.size() == 3 && result.runs[1].error.isEmpty() && result.runs[2].error.isEmpty() &&
        result.runs[1].timing.medianMs > 0 && result.runs[2].timing.medianMs > 0) {
        MultiplyWork work;
        work.rows = inA.rows;
        work.cols = inB.cols;
        work.inner = inA.cols;
        work.products = spgemmProducts(inA, inB);
        work.density = inA.rows && inA.cols ? double(inA.nnz()) / (double(inA.rows) * double(inA.cols)) : 0.0;
        result.verdict = bitFlagMultiplyVerdict(result.runs[1].timing.medianMs, result.runs[2].timing.medianMs, work);
    }
    return result;
}

} // namespace

QString toString(BitFlagOp op) {
    switch (op) {
    case BitFlagOp::Add: return QStringLiteral("A + B");
    case BitFlagOp::Subtract: return QStringLiteral("A − B");
    case BitFlagOp::Multiply: return QStringLiteral("A · B");
    case BitFlagOp::Lu: return QStringLiteral("LU of A");
    }
    return {};
}

BitFlagBytes estimateBitFlagBytes(Index rows, Index cols, Count entries, BitFlagOrder order, bool prefixCounts) {
    BitFlagBytes b;
    b.order = order;
    b.prefixCounts = prefixCounts;
    const bool rowMajor = order == BitFlagOrder::RowMajor;
    const double lines = rowMajor ? rows : cols, length = rowMajor ? cols : rows;
    // The seed's geometry: a line of <= 32 elements is one 32-bit word, longer lines 64-bit words.
    const double wordBytes = length <= 32 ? 4 : 8;
    const double wordsPerLine = length <= 32 ? 1 : std::ceil(length / 64);
    b.values = double(entries) * sizeof(double);
    b.flags = lines * wordsPerLine * wordBytes;
    b.lineStarts = (lines + 1) * sizeof(Count);
    b.prefix = prefixCounts ? lines * wordsPerLine * 4 : 0;
    b.breakEvenDensity = bitFlagBreakEvenDensity(rows, cols, order, prefixCounts);
    return b;
}

double csrBytes(Index rows, Count entries) {
    return double(entries) * (sizeof(double) + sizeof(Index)) + (double(rows) + 1) * sizeof(Count);
}

bool BitFlagOpResult::allAgree() const {
    if (runs.isEmpty() || !runs.front().error.isEmpty()) return false;
    for (const BitFlagOpRun& run : runs)
        if (run.error.isEmpty() && !run.agrees) return false;
    return true;
}

BitFlagLayout buildBitFlagLayout(const BitFlagLayoutRequest& request, const BitFlagJobControl& control) {
    requireReal(request.matrix, QStringLiteral("the matrix"));
    const Matrix& m = *request.matrix;
    checkOperandBytes(m, QStringLiteral("the matrix"), request.order, request.prefixCounts, request.maxBytes);
    Reporter report(control);
    report.stage(QStringLiteral("Converting to CSR"), 0, 30);
    const CsrMatrix<double> csr = toCsr<double>(m);
    report.stage(QStringLiteral("Encoding"), 30, 95);
    BitFlagOptions options;
    options.order = request.order;
    options.prefixCounts = request.prefixCounts;
    BitFlagLayout layout;
    auto format = std::make_shared<BitFlagMatrix<double>>();
    layout.encodeMs = cpuTimed([&] { *format = encodeBitFlag(csr, options); }).medianMs;
    report.fraction(1);
    layout.stats = checkedBitFlagStats(*format);
    for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor})
        for (bool prefix : {false, true}) layout.choices << estimateBitFlagBytes(m.rows, m.cols, format->nonzeros, order, prefix);
    layout.format = std::move(format);
    return layout;
}

BitFlagOpResult runBitFlagOperation(const BitFlagOpRequest& givenRequest, const BitFlagJobControl& control) {
    BitFlagOpRequest request = givenRequest;
    requireReal(request.a, QStringLiteral("A"));
    if (!request.b && !request.bPath.isEmpty() && request.op != BitFlagOp::Lu) {
        ReadOptions options;
        options.cancel = control.cancel;
        request.b = std::make_shared<const Matrix>(readMatrixMarket(QFile::encodeName(request.bPath).toStdString(), options));
        if (request.bName.isEmpty()) request.bName = QStringLiteral("B (%1)").arg(QFileInfo(request.bPath).fileName());
    }
    const bool sameOperand = !request.b || request.b == request.a;
    const QString bName = sameOperand ? QStringLiteral("A") : (request.bName.isEmpty() ? QStringLiteral("B") : request.bName);
    if (!sameOperand) requireReal(request.b, bName);
    const Matrix& a = *request.a;
    const Matrix& b = sameOperand ? a : *request.b;
    const QString aShape = shapeText(a.rows, a.cols), bShape = shapeText(b.rows, b.cols);
    const QString opName = QString(toString(request.op)).replace(QLatin1Char('B'), sameOperand ? QStringLiteral("A") : QStringLiteral("B"));

    switch (request.op) {
    case BitFlagOp::Add:
    case BitFlagOp::Subtract:
        if (a.rows != b.rows || a.cols != b.cols)
            refuse(QStringLiteral("%1 needs equal shapes: A is %2 but %3 is %4").arg(opName, aShape, bName, bShape));
        break;
    case BitFlagOp::Multiply:
        if (sameOperand && a.rows != a.cols)
            refuse(QStringLiteral("A · A needs a square matrix; A is %1").arg(aShape));
        if (a.cols != b.rows)
            refuse(QStringLiteral("A · B needs A's columns to equal B's rows: A is %1, %2 is %3").arg(aShape, bName, bShape));
        break;
    case BitFlagOp::Lu:
        if (a.rows != a.cols) refuse(QStringLiteral("LU needs a square matrix; A is %1").arg(aShape));
        break;
    }

    // Pre-flight: the operands in bit-flag form, and what the operation may produce.
    checkOperandBytes(a, QStringLiteral("A"), BitFlagOrder::RowMajor, request.prefixCounts, request.maxBytes);
    if (!sameOperand && request.op != BitFlagOp::Lu)
        checkOperandBytes(b, bName, request.op == BitFlagOp::Multiply ? BitFlagOrder::ColumnMajor : BitFlagOrder::RowMajor,
                          request.prefixCounts, request.maxBytes);
    if (request.op == BitFlagOp::Multiply) {
        const double worst = estimateBitFlagBytes(a.rows, b.cols, Count(a.rows) * Count(b.cols), BitFlagOrder::RowMajor,
                                                  request.prefixCounts).total();
        if (worst > request.maxBytes)
            refuse(QStringLiteral("%1 is %2 and may have up to %3 entries: its bit-flag form could take %4, more than the "
                                  "%5 this panel allows")
                       .arg(opName, shapeText(a.rows, b.cols)).arg(Count(a.rows) * Count(b.cols))
                       .arg(bytesText(worst), bytesText(request.maxBytes)));
    }
    if (request.op == BitFlagOp::Lu) {
        const double dense = double(a.rows) * double(a.rows) * sizeof(double);
        if (dense > request.maxBytes)
            refuse(QStringLiteral("LU expands A (%1) to a dense n × n of %2, more than the %3 this panel allows")
                       .arg(aShape, bytesText(dense), bytesText(request.maxBytes)));
    }

    Reporter report(control);
    BitFlagOpResult result = request.op == BitFlagOp::Lu ? runLu(request, a, report, control.cancel)
                                                         : runArithmetic(request, a, b, sameOperand, report, control.cancel);
    const Index rRows = result.rows, rCols = result.cols;
    result.description = request.op == BitFlagOp::Lu
                             ? QStringLiteral("LU of A (%1): without pivoting (the seed) and with partial pivoting").arg(aShape)
                             : QStringLiteral("%1: %2 and %3 → %4").arg(opName, aShape, bShape, shapeText(rRows, rCols));
    report.stage(QStringLiteral("Done"), 100, 100);
    return result;
}

BitFlagJobResult runBitFlagJob(const BitFlagJobRequest& request, const std::atomic<bool>* cancel, const JobProgress& progress) {
    const BitFlagJobControl control{cancel, progress};
    if (const auto* layout = std::get_if<BitFlagLayoutRequest>(&request))
        return {std::make_shared<BitFlagLayout>(buildBitFlagLayout(*layout, control)), nullptr};
    return {nullptr, std::make_shared<BitFlagOpResult>(runBitFlagOperation(std::get<BitFlagOpRequest>(request), control))};
}

BitFlagJob::BitFlagJob(QObject* parent)
    : ComputeJob(parent, runBitFlagJob, QStringLiteral("encoding or running the bit-flag operation")) {
    onFinished(this, [this](const BitFlagJobResult& result) {
        if (result.layout) emit layoutFinished(*result.layout);
        else emit operationFinished(*result.operation);
    });
}

} // namespace spyglass::app
