#pragma once
// `spyglass-cli spmv`: y = A x in one format on one backend: method B's segmented DIA (and plain DIA,
// HDIA), method D's hybrid encoding (binary matrices by the zeros of their dense regions, any other
// real matrix with its values) or the CSR baseline; on the CPU reference, Spyglass's CUDA kernels or
// cuSPARSE; optionally with the rows split into partitions (over GPUs). And --time: the chosen
// format's multiply measured like the benchmarks beside cuSPARSE CSR on the same matrix and x.
// Which format runs on which backend is the caller's to check: a combination the library does not
// have fails in it. A complex matrix multiplies in c64 or c128 in every format but the partitioned
// runs, on the CPU reference and on the GPU backends alike (the hybrid in its valued form).
#include "partitionedmatrix.h"

#include "spyglass/hybrid_regions.h"
#include "spyglass/matrix.h"
#include "spyglass/measurement.h"
#include "spyglass/segdia.h"
#include "spyglass/spmvtiming.h"

#include <QString>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spyglass::app {

enum class SpmvFormat { Csr, Dia, Hdia, SegmentedDia, Hybrid };
enum class SpmvRunner { Cpu, Cuda, Cusparse };

struct SpmvRunRequest {
    std::shared_ptr<const Matrix> matrix;
    QString source;  // the file, for messages
    SpmvFormat format = SpmvFormat::SegmentedDia;
    SpmvRunner runner = SpmvRunner::Cpu;
    Index threshold = 0;  // segmented DIA and HDIA: rows per segment; 0: chosen per matrix by the builder
    SegmentedDiaRemainder remainder = SegmentedDiaRemainder::Auto;
    DetectionOptions detection;  // hybrid: how dense regions are found
    // The rows split into partitions.parts slices (csr, segdia or hybrid), over `devices` when given.
    bool partitioned = false;
    PartitionRequest partitions;
    std::vector<int> devices;
    // --stats: the format's figures (and for the hybrid encoding its break-even against cuSPARSE),
    // one text a call; null: not computed.
    std::function<void(const std::string&)> note;
    TimingOptions timing;  // timeSpmvBesideVendor
};

// Refuses (InputError naming `source`) a matrix whose row pointers, x and y the host cannot hold.
void requireSpmvInput(const Matrix& matrix, const QString& source);
// x: "ones", "random" (uniform in [-1, 1), from `seed`; both parts for a complex T) or a file of
// `cols` values (vectorfile.h; for a complex T `cols` pairs "real imaginary").
template <typename T>
std::vector<T> spmvInputVector(const QString& xSource, unsigned seed, Index cols);

template <typename T>
std::vector<T> computeSpmv(const SpmvRunRequest& request, const std::vector<T>& x);

// What --time reports of one timed run (its y stays behind: the untimed run is the one written out).
struct SpmvFigures {
    Measurement timing;
    double bytesMoved = 0;
};
struct SpmvTimes {
    QString name;        // "CUDA segmented DIA", "CUDA hybrid", "cuSPARSE CSR" ...
    SpmvFigures ours;    // the chosen format on CUDA (cuSPARSE itself for csr)
    SpmvFigures vendor;  // cuSPARSE CSR, same matrix and x
};
// In T: double for a real matrix, std::complex<float> or std::complex<double> for a complex one (the
// hybrid then in its valued form). CUDA events, median of warm runs, the cold
// first call and the upload apart. csr, segdia, hdia and hybrid only (InputError otherwise).
template <typename T>
SpmvTimes timeSpmvBesideVendor(const SpmvRunRequest& request, const std::vector<T>& x);

} // namespace spyglass::app
