#pragma once
// A rendezvous: the processes of one multi-process run (one per GPU, on one host or several) meet
// once before NCCL starts, so that every rank gets rank 0's bytes (its ncclUniqueId) and rank 0
// learns that every rank is there. Two kinds, as torchrun offers:
//
//   file:/shared/path   rank 0 publishes the bytes in that file; every other rank reads it and
//                       leaves its own marker beside it (PATH.rank<r>), which rank 0 waits for.
//   tcp:HOST:PORT       rank 0 listens on PORT; every other rank connects to HOST:PORT, sends its
//                       rank and run id, and gets the bytes back.
//
// Every rank passes the same run id (Slurm's job id by default). A file or a peer of another run is
// never taken for this one: a stale file from an earlier run is ignored by the other ranks and
// replaced by rank 0. A rank that does not come within the timeout is named in the error.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace spyglass {

enum class RendezvousKind { File, Tcp };

struct RendezvousSpec {
    RendezvousKind kind = RendezvousKind::File;
    std::string path;        // File
    std::string host;        // Tcp (an IPv6 literal without its brackets)
    std::uint16_t port = 0;  // Tcp
    std::string runId;       // shared by every rank of one run
    // "file:/shared/x run 42", the prefix of every error message.
    std::string describe() const;
    // "file:/shared/x" or "tcp:host:29500", as the user wrote it.
    std::string address() const;
};

// The longest run id and the most bytes rank 0 may share (an ncclUniqueId is 128).
constexpr std::size_t kMaxRendezvousRunId = 128;
constexpr std::size_t kMaxRendezvousBlob = 65536;

// Parses "file:PATH" or "tcp:HOST:PORT" ("tcp:[::1]:PORT" for IPv6). runId empty: Slurm's
// SLURM_JOB_ID. InputError for another spelling, a port outside 1..65535, or no run id at all (a
// run id of letters, digits and . _ - : only, at most kMaxRendezvousRunId characters).
RendezvousSpec parseRendezvousSpec(std::string_view text, std::string runId = {});

// Every rank calls this once with the same spec and world size; rank 0 passes the bytes to share
// (the others' `blob` is ignored). Returns rank 0's bytes on every rank; on rank 0 it returns once
// every other rank has arrived. InputError naming the spec and the missing rank when one does not
// arrive within `timeout` (rank 0), or rank 0 does not publish within it (the others); InputError
// for ranks that disagree on the world size, two processes that claim one rank, or rank/world size
// out of range.
std::vector<std::uint8_t> exchangeThroughRendezvous(const RendezvousSpec& spec, int rank, int worldSize,
                                                    const std::vector<std::uint8_t>& blob,
                                                    std::chrono::milliseconds timeout);

} // namespace spyglass
