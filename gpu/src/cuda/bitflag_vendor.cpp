// Method A's vendor baselines as whole host-to-host operations, for callers outside gpu/ (the GUI's
// bit-flag panel) that cannot see the device-level DeviceCsr32 API the benchmark uses.
#include "bitflag_device.h"

#include "spyglass/backend.h"
#include "spyglass/bitflag.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass {

namespace {

void requireDevice(const char* what) {
    const DeviceInfo info = cudaDeviceInfo();
    if (!info.present) throw BackendUnavailableError(std::string(what) + ": " + info.reason);
}

std::string shapeOf(const CsrMatrix<float>& m) { return std::to_string(m.rows) + " x " + std::to_string(m.cols); }

} // namespace

CsrMatrix<float> csrAddCusparse(const CsrMatrix<float>& a, const CsrMatrix<float>& b, float sign) {
    if (a.rows != b.rows || a.cols != b.cols)
        throw InputError("cuSPARSE add: A is " + shapeOf(a) + " but B is " + shapeOf(b));
    requireDevice("cuSPARSE add");
    // csrgeam2 takes a beta, but the baseline wrapper fixes it at 1: a subtraction adds -B instead,
    // which costs one host pass over B and leaves the measured device work unchanged.
    CsrMatrix<float> negated;
    const CsrMatrix<float>* second = &b;
    if (sign != 1.0f) {
        negated = b;
        for (float& v : negated.values) v *= sign;
        second = &negated;
    }
    cuda::DeviceCsr32 da(a), db(*second), dc;
    cuda::cusparseCsrAdd(da, db, dc);
    return dc.download();
}

CsrMatrix<float> csrMultiplyCusparse(const CsrMatrix<float>& a, const CsrMatrix<float>& b) {
    if (a.cols != b.rows)
        throw InputError("cuSPARSE multiply: A is " + shapeOf(a) + " and B is " + shapeOf(b) + "; A's columns must equal B's rows");
    requireDevice("cuSPARSE multiply");
    cuda::DeviceCsr32 da(a), db(b), dc;
    cuda::cusparseCsrMultiply(da, db, dc);
    return dc.download();
}

} // namespace spyglass
