// The rendezvous entry point: checks what every kind relies on, then hands over to the file or TCP
// kind (rendezvous_file.cpp, rendezvous_tcp.cpp).
#include "core/rendezvous_kinds.h"
#include "core/rendezvous_message.h"

#include "spyglass/error.h"

#include <algorithm>
#include <cstdio>
#include <thread>

namespace spyglass {
namespace rendezvous {

std::string secondsText(std::chrono::milliseconds timeout) {
    char text[32];
    std::snprintf(text, sizeof text, "%g s", static_cast<double>(timeout.count()) / 1000.0);
    return text;
}

std::string missingRanksText(const std::vector<int>& missing, int worldSize) {
    std::string text = missing.size() == 1 ? "rank " : "ranks ";
    for (std::size_t k = 0; k < missing.size(); ++k) text += (k ? ", " : "") + std::to_string(missing[k]);
    return text + " of " + std::to_string(worldSize);
}

void pause(int attempt, Clock::time_point deadline) {
    // Short at first (threads of one test meet within milliseconds), then light on a shared file
    // system that many ranks poll at once.
    const auto wait = std::chrono::milliseconds(std::min(50, 2 << std::min(attempt, 5)));
    std::this_thread::sleep_until(std::min(Clock::now() + wait, deadline));
}

} // namespace rendezvous

std::vector<std::uint8_t> exchangeThroughRendezvous(const RendezvousSpec& spec, int rank, int worldSize,
                                                    const std::vector<std::uint8_t>& blob,
                                                    std::chrono::milliseconds timeout) {
    const std::string place = spec.describe() + ": ";
    if (worldSize < 1) throw InputError(place + "the world size must be at least 1 (got " + std::to_string(worldSize) + ")");
    if (rank < 0 || rank >= worldSize)
        throw InputError(place + "rank " + std::to_string(rank) + " is outside 0.." + std::to_string(worldSize - 1) +
                         " for a world of " + std::to_string(worldSize));
    if (rank == 0 && blob.size() > kMaxRendezvousBlob)
        throw InputError(place + "rank 0 shares at most " + std::to_string(kMaxRendezvousBlob) + " bytes (got " +
                         std::to_string(blob.size()) + ")");
    if (timeout.count() <= 0) throw InputError(place + "the timeout must be positive");
    // A spec built by hand skips parseRendezvousSpec: the run id goes into file lines and messages.
    const bool runIdFits = !spec.runId.empty() && spec.runId.size() <= kMaxRendezvousRunId &&
                           std::all_of(spec.runId.begin(), spec.runId.end(), rendezvous::isRunIdCharacter);
    if (!runIdFits)
        throw InputError(place + "the run id must be 1 to " + std::to_string(kMaxRendezvousRunId) +
                         " letters, digits or . _ - :");
    if (spec.kind == RendezvousKind::Tcp && spec.port == 0) throw InputError(place + "the port must be from 1 to 65535");
    if (worldSize == 1) return blob;  // nobody to meet
    const auto deadline = rendezvous::Clock::now() + timeout;
    const bool file = spec.kind == RendezvousKind::File;
    if (rank == 0)
        return file ? rendezvous::publishThroughFile(spec, worldSize, blob, deadline, timeout)
                    : rendezvous::publishThroughTcp(spec, worldSize, blob, deadline, timeout);
    return file ? rendezvous::checkInThroughFile(spec, rank, worldSize, deadline, timeout)
                : rendezvous::checkInThroughTcp(spec, rank, worldSize, deadline, timeout);
}

} // namespace spyglass
