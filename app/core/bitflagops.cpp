#include "bitflagops.h"

#include "checkedwrite.h"
#include "containerexport.h"
#include "matrixexport.h"

#include "spyglass/bitflag_baselines.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"

namespace spyglass::app {

namespace {
void requireReal(const Matrix& matrix, const QString& source, const char* what) {
    if (matrix.isComplex()) throw InputError(localPath(source) + ": complex matrices are not supported by " + what);
}
} // namespace

BitFlagMatrix<double> encodeBitFlagOperand(const Matrix& matrix, const QString& source, const BitFlagOptions& options) {
    requireReal(matrix, source, "the bit-flag format");
    checkBitFlagBudget(matrix, localPath(source));  // the flags take rows x cols bits whatever the nonzeros
    return encodeBitFlag(toCsr<double>(matrix), options);
}

CsrMatrix<float> vendorCsrOperand(const Matrix& matrix, const QString& source) {
    requireReal(matrix, source, "this comparison (fp32 real)");
    return toCsr<float>(matrix);
}

BitFlagMatrix<double> bitFlagArithmetic(BitFlagOp op, const BitFlagMatrix<double>& a, const BitFlagMatrix<double>& b,
                                        const BitFlagRunOptions& options) {
    switch (op) {
    case BitFlagOp::Add: return bitFlagAdd(a, b, options);
    case BitFlagOp::Subtract: return bitFlagSub(a, b, options);
    case BitFlagOp::Multiply: return bitFlagMultiply(a, b, options);
    case BitFlagOp::Lu: break;
    }
    throw InputError("LU is not an arithmetic operation");
}

CsrMatrix<float> vendorArithmetic(BitFlagOp op, const CsrMatrix<float>& a, const CsrMatrix<float>& b, const BitFlagRunOptions& options) {
    switch (op) {
    case BitFlagOp::Add: return csrAdd(a, b, options);
    case BitFlagOp::Subtract: return csrSub(a, b, options);
    case BitFlagOp::Multiply: return csrMultiply(a, b, options);
    case BitFlagOp::Lu: break;
    }
    throw InputError("LU is not an arithmetic operation");
}

BitFlagLu<double> luWithoutPivoting(const BitFlagMatrix<double>& a, const BitFlagRunOptions& options) {
    return bitFlagLu(a, options);
}

BitFlagPivotedLu<double> luWithPartialPivoting(const BitFlagMatrix<double>& a, const BitFlagRunOptions& options) {
    return bitFlagLuPivoted(a, options);
}

double pivotedLuResidual(const BitFlagMatrix<double>& a, const BitFlagPivotedLu<double>& lu) { return bitFlagLuResidual(a, lu); }

BitFlagStats checkedBitFlagStats(const BitFlagMatrix<double>& format) {
    validateBitFlag(format);
    return computeBitFlagStats(format);
}

void exportResultMatrix(const BitFlagMatrix<double>& matrix, const QString& path) { exportMatrixFile(fromCsr(decodeBitFlag(matrix)), path); }

void exportResultMatrix(const CsrMatrix<float>& matrix, const QString& path) { exportMatrixFile(fromCsr(matrix), path); }

} // namespace spyglass::app
