#pragma once
// Moved to the public gpu/include/spyglass/cuda/batchedsvd_device_api.h (bench_batchedsvd uses it too); kept so
// that the kernels include it by its old name.
#include "spyglass/cuda/batchedsvd_device_api.h"
