#pragma once
// The two rendezvous kinds behind exchangeThroughRendezvous (spyglass/rendezvous.h), which has
// validated rank, world size and blob before either is called, plus what both use to say so.
#include "spyglass/rendezvous.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace spyglass::rendezvous {

using Clock = std::chrono::steady_clock;

// Each kind has the same two roles, and which one a rank plays is decided in one place
// (exchangeThroughRendezvous): rank 0 publishes the blob and waits until every other rank has
// checked in; every other rank checks in and returns the blob it found.
std::vector<std::uint8_t> publishThroughFile(const RendezvousSpec& spec, int worldSize, const std::vector<std::uint8_t>& blob,
                                             Clock::time_point deadline, std::chrono::milliseconds timeout);
std::vector<std::uint8_t> checkInThroughFile(const RendezvousSpec& spec, int rank, int worldSize, Clock::time_point deadline,
                                             std::chrono::milliseconds timeout);
std::vector<std::uint8_t> publishThroughTcp(const RendezvousSpec& spec, int worldSize, const std::vector<std::uint8_t>& blob,
                                            Clock::time_point deadline, std::chrono::milliseconds timeout);
std::vector<std::uint8_t> checkInThroughTcp(const RendezvousSpec& spec, int rank, int worldSize, Clock::time_point deadline,
                                            std::chrono::milliseconds timeout);

// "5 s", "0.3 s": the timeout as the user gave it.
std::string secondsText(std::chrono::milliseconds timeout);
// "rank 3 of 4" or "ranks 1, 3 of 4".
std::string missingRanksText(const std::vector<int>& missing, int worldSize);
// A short wait between polls, growing from 2 ms to 50 ms, never past the deadline.
void pause(int attempt, Clock::time_point deadline);

} // namespace spyglass::rendezvous
