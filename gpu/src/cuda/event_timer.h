#pragma once
// Moved to the public gpu/include/spyglass/cuda/eventtimer.h (the .cu benchmarks use it too); kept so that
// the kernels of every method include it by its old name.
#include "spyglass/cuda/eventtimer.h"
