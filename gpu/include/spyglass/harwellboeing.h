#pragma once
// Harwell-Boeing and Rutherford-Boeing files (.rua, .rsa, .psa, .cua, .rb, .hb ...), the SuiteSparse
// collection's other format: assembled matrices stored by columns (1-based column pointers and row
// indices), in the Fortran fixed-width formats the header names ((16I5), (3E25.16), (1P,4D20.12) ...).
// Types: real, complex, integer and pattern (R, C, I, P/Q); unsymmetric, rectangular, symmetric,
// Hermitian and skew-symmetric (U, R, S, H, Z), the symmetric kinds by their lower triangle as in
// Matrix Market. Elemental matrices (third letter E) are refused. Errors are InputError naming the
// file and the line.
#include "spyglass/matrix.h"

#include <string>
#include <string_view>

namespace spyglass {

Matrix parseHarwellBoeing(std::string_view text, const std::string& where, Count maxEntries = 0);
// True when the first lines look like a Harwell-Boeing header (a type such as RUA on line 3 and a
// Fortran format on line 4).
bool looksLikeHarwellBoeing(std::string_view head);

} // namespace spyglass
