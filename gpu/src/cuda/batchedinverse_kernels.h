#pragma once
// Moved to the public gpu/include/spyglass/cuda/batchedinverse_device_api.h (bench_batchedinverse uses it too); kept so
// that the kernels include it by its old name.
#include "spyglass/cuda/batchedinverse_device_api.h"
