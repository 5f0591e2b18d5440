// The TCP rendezvous: rank 0 listens on PORT and answers each rank that checks in (its rank, world
// size and run id) with its own message carrying the bytes; the other ranks connect to HOST:PORT,
// retrying until rank 0 is up or the timeout passes. A peer of another run gets an answer naming
// rank 0's run and is not counted; a stranger whose bytes are no rendezvous message is turned away.
#include "core/rendezvous_message.h"
#include "core/rendezvous_socket.h"

#include "spyglass/error.h"

#include <algorithm>

namespace spyglass::rendezvous {
namespace {

// A connected peer sends its message at once; one that does not may hold rank 0 this long at most.
constexpr std::chrono::milliseconds kMessageWait{2000};

RendezvousMessage messageOf(const RendezvousSpec& spec, int rank, int worldSize, const std::vector<std::uint8_t>& blob) {
    RendezvousMessage message;
    message.rank = static_cast<std::uint32_t>(rank);
    message.worldSize = static_cast<std::uint32_t>(worldSize);
    message.runId = spec.runId;
    message.blob = blob;
    return message;
}

} // namespace

std::vector<std::uint8_t> publishThroughTcp(const RendezvousSpec& spec, int worldSize, const std::vector<std::uint8_t>& blob,
                                            Clock::time_point deadline, std::chrono::milliseconds timeout) {
    const std::string place = spec.describe() + ": ";
    Socket listener;
    try {
        listener = listenOn(spec.host, spec.port);
    } catch (const Error& e) {
        throw InputError(place + "rank 0 " + e.what());
    }
    const std::string answer = encodeMessage(messageOf(spec, 0, worldSize, blob));
    std::vector<bool> arrived(std::size_t(worldSize), false);
    arrived[0] = true;
    int refused = 0;
    std::string lastRefusal;
    for (;;) {
        std::vector<int> missing;
        for (int r = 1; r < worldSize; ++r)
            if (!arrived[std::size_t(r)]) missing.push_back(r);
        if (missing.empty()) return blob;
        std::string peer;
        const Socket client = acceptBefore(listener, deadline, peer);
        if (!client.valid()) {
            const std::string refusals = refused == 0 ? std::string()
                                                      : " (turned away " + std::to_string(refused) + " connection" +
                                                            (refused > 1 ? "s" : "") + "; the last: " + lastRefusal + ")";
            throw InputError(place + missingRanksText(missing, worldSize) + " did not arrive within " + secondsText(timeout) +
                             refusals);
        }
        std::string bytes;
        RendezvousMessage message;
        try {
            const ReadOutcome outcome = readMessage(client, std::min(deadline, Clock::now() + kMessageWait), bytes);
            if (outcome != ReadOutcome::Message)
                throw InputError(outcome == ReadOutcome::Closed ? "closed before a whole message" : "sent no whole message in time");
            message = decodeMessage(bytes);
        } catch (const InputError& e) {
            ++refused;
            lastRefusal = peer + ": " + e.what();
            continue;
        }
        if (message.runId != spec.runId) {
            // Someone else's rank: told which run this is, so it can say so, and not counted.
            sendAll(client, answer, deadline);
            continue;
        }
        const std::string who = "rank " + std::to_string(message.rank) + " (" + peer + ")";
        if (message.worldSize != std::uint32_t(worldSize)) {
            sendAll(client, answer, deadline);  // its rank reports the mismatch too
            throw InputError(place + who + " was started with world size " + std::to_string(message.worldSize) +
                             ", rank 0 with " + std::to_string(worldSize));
        }
        if (message.rank == 0) throw InputError(place + "another process (" + peer + ") was started as rank 0 too");
        if (arrived[message.rank])
            throw InputError(place + who + " checked in a second time: two processes were started with one rank");
        if (sendAll(client, answer, deadline)) arrived[message.rank] = true;
    }
}

std::vector<std::uint8_t> checkInThroughTcp(const RendezvousSpec& spec, int rank, int worldSize, Clock::time_point deadline,
                                            std::chrono::milliseconds timeout) {
    const std::string place = spec.describe() + ", rank " + std::to_string(rank) + ": ";
    const std::string rankZero = "rank 0 at " + spec.address().substr(4);
    const std::string hello = encodeMessage(messageOf(spec, rank, worldSize, {}));
    std::string lastError = "no attempt";
    for (int attempt = 0;; ++attempt) {
        if (Clock::now() >= deadline)
            throw InputError(place + rankZero + " did not answer within " + secondsText(timeout) + " (last attempt: " + lastError +
                             ")");
        const Socket socket = connectBefore(spec.host, spec.port, deadline, lastError);
        if (!socket.valid()) {
            pause(attempt, deadline);  // rank 0 may not listen yet
            continue;
        }
        if (!sendAll(socket, hello, deadline)) {
            lastError = "the connection broke while checking in";
            pause(attempt, deadline);
            continue;
        }
        std::string bytes;
        ReadOutcome outcome;
        try {
            outcome = readMessage(socket, deadline, bytes);
        } catch (const InputError& e) {
            throw InputError(place + "the answer from " + rankZero + " is not a rendezvous message: " + e.what());
        }
        if (outcome == ReadOutcome::TimedOut)
            throw InputError(place + rankZero + " did not answer within " + secondsText(timeout));
        if (outcome == ReadOutcome::Closed)
            throw InputError(place + rankZero + " closed the connection without answering: it refused this rank (see rank 0's error)");
        RendezvousMessage answer;
        try {
            answer = decodeMessage(bytes);
        } catch (const InputError& e) {
            throw InputError(place + "the answer from " + rankZero + " is not a rendezvous message: " + e.what());
        }
        if (answer.runId != spec.runId)
            throw InputError(place + "the process at " + spec.address().substr(4) + " serves run " + answer.runId + ", not this one");
        if (answer.rank != 0) throw InputError(place + "the answer came from rank " + std::to_string(answer.rank) + ", not rank 0");
        if (answer.worldSize != std::uint32_t(worldSize))
            throw InputError(place + "rank 0 was started with world size " + std::to_string(answer.worldSize) + ", this rank with " +
                             std::to_string(worldSize));
        return answer.blob;
    }
}

} // namespace spyglass::rendezvous
