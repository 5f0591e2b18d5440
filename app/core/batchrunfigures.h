#pragma once
// What a batched run (the batched SVD, the batched inverse) reports whatever it computes: the batch,
// where it ran and how long it took. Both results derive from it, so that they take their run's
// figures and open their one-line summary the same way.
#include "timingtext.h"

#include "spyglass/measurement.h"

#include <QString>
#include <QtGlobal>

namespace spyglass::app {

struct BatchRunFigures {
    qint64 batch = 0;
    QString precision, backend, device, source;
    Measurement timing;     // the measurement engine's figure: kernel or vendor call (GPU), the computation (CPU)
    double bytesMoved = 0;  // what the kernel must read and write at the least: the bandwidth floor
    double computeMs = 0;   // timing.medianMs (summed over the GPUs when several ran)
    double setupMs = 0;     // GPU: stream, buffers, vendor handles and workspaces (inside totalMs); CPU: 0
    double totalMs = 0;     // wall time of the whole call: set-up, transfers and every timed repeat
    int chunks = 1;         // GPU: pieces the batch was split into to fit the device
    // Several GPUs: streams, chunk size and its model, and a fallback to fewer GPUs with its reason
    // (the run info's streamNote); empty otherwise.
    QString streamNote;

    // The times of a library run (InverseRunInfo, SvdRunInfo: timing, computeMs, setupMs, totalMs, chunks).
    template <typename RunInfo> void takeTimes(const RunInfo& run) {
        // The copy-bandwidth ceiling the timing table reads against: measured (once per process) here on
        // the worker, never by the table on the GUI thread.
        if (run.timing.clock == TimingClock::CudaEvents) deviceCopyBandwidthGBs();
        timing = run.timing;
        computeMs = run.computeMs;
        setupMs = run.setupMs;
        totalMs = run.totalMs;
        chunks = run.chunks;
        streamNote = QString::fromStdString(run.streamNote);
    }

    // "B x SHAPE PRECISION on BACKEND (WHERE): T compute, S ms set-up, W ms total", the summary's opening.
    QString summaryHead(const QString& shape, const QString& where) const {
        return QStringLiteral("%1 x %2 %3 on %4 (%5): %6 compute, %7 ms set-up, %8 ms total")
            .arg(batch)
            .arg(shape, precision, backend, where)
            .arg(timingText(timing))
            .arg(setupMs, 0, 'f', 3)
            .arg(totalMs, 0, 'f', 3);
    }

    // The summary's closing notes: the chunks the batch was split into, the cold call left out.
    QString summaryTail() const {
        QString tail;
        if (!streamNote.isEmpty()) tail += QStringLiteral("; streamed: ") + streamNote;
        else if (chunks > 1) tail += QStringLiteral("; split into %1 chunks to fit the GPU").arg(chunks);
        if (timing.coldMs >= 0) tail += QStringLiteral("; first (cold) call %1 ms, not counted").arg(millisecondsText(timing.coldMs));
        return tail;
    }
};

} // namespace spyglass::app
