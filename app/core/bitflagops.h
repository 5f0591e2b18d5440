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

// The matrix a bit-flag form (or a CSR result) holds, written as a matrix file (checked export).
void exportResultMatrix(const BitFlagMatrix<double>& matrix, const QString& path);
void exportResultMatrix(const CsrMatrix<float>& matrix, const QString& path);

} // namespace spyglass::app
