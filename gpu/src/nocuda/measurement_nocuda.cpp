// Without CUDA there is no device copy bandwidth to read times against.
#include "spyglass/measurement.h"

namespace spyglass {

double deviceCopyBandwidthGBs() { return 0; }

} // namespace spyglass
