#pragma once
// Method A's operations on one backend, written once for the bit-flag job (which runs every backend
// and checks each) and spyglass-cli (which runs the one asked for): the operands read for the
// bit-flag form, the arithmetic on the bit-flag kernels or on the vendor's CSR, and a result written
// back as a matrix file through the checked export (matrixexport.h).
#include "bitflagjob.h"

#include "spyglass/bitflag.h"
#include "spyglass/matrix.h"

#include <QString>

namespace spyglass::app {

// A matrix as a bit-flag operand: complex matrices refused and the flags' budget checked (InputError
// naming `source`), then encoded.
BitFlagMatrix<double> encodeBitFlagOperand(const Matrix& matrix, const QString& source, const BitFlagOptions& options);
// A matrix as the vendor comparison's operand: fp32 CSR (its fastest paths); complex refused.
CsrMatrix<float> vendorCsrOperand(const Matrix& matrix, const QString& source);

// A + B, A - B or A B (not LU) on the bit-flag kernels of options.backend (the reference or CUDA);
// for A B, B is stored by columns (the seed multiplies row bits by column bits).
BitFlagMatrix<double> bitFlagArithmetic(BitFlagOp op, const BitFlagMatrix<double>& a, const BitFlagMatrix<double>& b,
                                        const BitFlagRunOptions& options);
// The same on the vendor's CSR (cuSPARSE csrgeam2, SpGEMM).
CsrMatrix<float> vendorArithmetic(BitFlagOp op, const CsrMatrix<float>& a, const CsrMatrix<float>& b, const BitFlagRunOptions& options);

// LU(A) without pivoting (the seed) on the bit-flag kernels of options.backend; a zero or tiny pivot
// throws naming the step.
BitFlagLu<double> luWithoutPivoting(const BitFlagMatrix<double>& a, const BitFlagRunOptions& options);
// LU(A) with partial pivoting: the CPU reference, the blocked CUDA LU, or cuSOLVER getrf (Vendor).
BitFlagPivotedLu<double> luWithPartialPivoting(const BitFlagMatrix<double>& a, const BitFlagRunOptions& options = {});
// ||PA - LU|| / ||A|| of a pivoted factorization (dense: O(n^3)).
double pivotedLuResidual(const BitFlagMatrix<double>& a, const BitFlagPivotedLu<double>& lu);

// A bit-flag form checked for consistency, then counted against CSR (density, bytes, break-even).
BitFlagStats checkedBitFlagStats(const BitFlagMatrix<double>& format);

// The matrix a bit-flag form (or a CSR result) holds, written as a matrix file (checked export).
void exportResultMatrix(const BitFlagMatrix<double>& matrix, const QString& path);
void exportResultMatrix(const CsrMatrix<float>& matrix, const QString& path);

} // namespace spyglass::app
