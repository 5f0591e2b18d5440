#pragma once
// Method D in one include: dense-region detection (hybrid_regions.h: detectDenseRegions), the hybrid
// encodings of binary and valued matrices (hybrid_binary.h, hybrid_valued.h) and their SpMV
// (hybrid_spmv.h: hybridSpmv).
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/hybrid_spmv.h"
#include "spyglass/hybrid_valued.h"
