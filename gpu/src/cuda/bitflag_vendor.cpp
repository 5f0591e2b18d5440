// Method A's vendor baselines as whole host-to-host operations, for callers outside gpu/ (the GUI's
// bit-flag panel) that cannot see the device-level DeviceCsr32 API the benchmark uses.
#include "bitflag_device.h"
#include "core/csr_vendor_checks.h"

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

} // namespace

CsrMatrix<float> csrAddCusparse(const CsrMatrix<float>& a, const CsrMatrix<float>& b, float sign) {
    vendor_checks::requireSameShape(a, b);
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
    vendor_checks::requireMultipliable(a, b);
    requireDevice("cuSPARSE multiply");
    cuda::DeviceCsr32 da(a), db(b), dc;
    cuda::CusparseWorkspace workspace;
    try {
        cuda::cusparseCsrMultiply(da, db, dc, workspace);
    } catch (const Error&) {
        // ALG_DEFAULT's buffer grows with the number of products and runs out on large, dense-ish
        // products (INSUFFICIENT_RESOURCES); the chunked algorithm then still gives the answer.
        cuda::cusparseCsrMultiply(da, db, dc, workspace, cuda::SpGemmAlgorithm::MemoryBounded);
    }
    return dc.download();
}

} // namespace spyglass
