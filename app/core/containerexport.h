#pragma once
// Exports of a matrix in the segmented-DIA (method B) and bit-flag (method A) containers, shared by
// the command-line tool (`spyglass-cli export`) and the GUI (Segmented DIA panel, File menu). Each
// export serialises the container, decodes the bytes again and compares them with the format it
// holds, and only then writes the file atomically: a file that would not read back is never written.
// Failures throw spyglass::Error (InputError for matrices a container cannot hold).
#include "spyglass/bitflag.h"
#include "spyglass/container.h"
#include "spyglass/matrix.h"
#include "spyglass/segdia.h"

#include <QString>

#include <atomic>
#include <cstddef>
#include <string>

namespace spyglass::app {

// The field a container keeps for this matrix's values: Pattern, Integer or Real. Complex matrices
// have no segmented-DIA or bit-flag container: InputError naming `source`.
Field containerFieldFor(const Matrix& matrix, const std::string& source);
// The field a segmented-DIA container keeps for `format`, built from `matrix`: containerFieldFor(),
// except that a pattern listing an entry twice sums to 2 in the layout, and its values are then what
// the file must keep (Real).
Field segmentedDiaFieldFor(const Matrix& matrix, const SegmentedDiaMatrix<double>& format, const std::string& source);
// Bit flags take rows x cols bits whatever the nonzeros: InputError naming `source` when that is more
// than a few GB, before anything is allocated.
void checkBitFlagBudget(const Matrix& matrix, const std::string& source);

struct ContainerExportReport {
    ContainerEncoding encoding = ContainerEncoding::SegmentedDia;
    std::size_t fileBytes = 0;  // the container as written
    std::size_t csrBytes = 0;   // CSR of the same entries: fp64 values, 32-bit columns, 64-bit row pointers
    Count entries = 0;          // entries the file decodes to
    std::string details;        // the format's figures, one line
    // "OUT: segdia container, 4054 entries, 81234 bytes (CSR 57800 bytes); 2 segments in 2 blocks ..."
    QString describe(const QString& path) const;
};

// A built format to a file. cancel (when set) is polled between the steps (CancelledError).
ContainerExportReport writeSegmentedDiaExport(const SegmentedDiaMatrix<double>& format, Field field, const QString& path,
                                              const std::string& note, const std::atomic<bool>* cancel = nullptr);
ContainerExportReport writeBitFlagExport(const BitFlagMatrix<double>& format, Field field, const QString& path,
                                         const std::string& note, const std::atomic<bool>* cancel = nullptr);

// From the file form (symmetry expanded, duplicates summed): build the format, then write it.
// Segmented DIA cannot tell explicit zeros from padding (they do not come back); the bit-flag export
// keeps them, so that it decodes to exactly the stored structure.
// `source` names the matrix in errors (its file).
ContainerExportReport exportSegmentedDia(const Matrix& matrix, const std::string& source, const SegmentedDiaOptions& options,
                                         const QString& path, const std::string& note,
                                         const std::atomic<bool>* cancel = nullptr);
ContainerExportReport exportBitFlag(const Matrix& matrix, const std::string& source, BitFlagOrder order, bool prefixCounts,
                                    const QString& path, const std::string& note, const std::atomic<bool>* cancel = nullptr);

} // namespace spyglass::app
