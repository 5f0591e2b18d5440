#pragma once
// The POSIX socket calls the TCP rendezvous needs, each bounded by a deadline so that a silent peer
// or an unreachable host costs at most the rendezvous's timeout.
#include "core/rendezvous_kinds.h"

#include <cstdint>
#include <optional>
#include <string>

namespace spyglass::rendezvous {

// Owns a file descriptor (-1: none).
class Socket {
public:
    Socket() = default;
    explicit Socket(int fd) : m_fd(fd) {}
    ~Socket();
    Socket(Socket&& other) noexcept : m_fd(other.m_fd) { other.m_fd = -1; }
    Socket& operator=(Socket&& other) noexcept;
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    int fd() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }

private:
    int m_fd = -1;
};

// A listening socket on every address of host's family, port `port` (SO_REUSEADDR, so a run can
// follow another on the same port at once). Throws Error with the system's reason.
Socket listenOn(const std::string& host, std::uint16_t port);
// The next connection, or an invalid Socket when none came before the deadline.
Socket acceptBefore(const Socket& listener, Clock::time_point deadline, std::string& peer);
// A connected socket, or an invalid one with the reason in `error` (refused, unreachable, no such
// host): the caller retries until its own deadline.
Socket connectBefore(const std::string& host, std::uint16_t port, Clock::time_point deadline, std::string& error);

enum class ReadOutcome { Message, Closed, TimedOut };
// Reads one rendezvous message (rendezvous_message.h) into `message`. InputError as soon as the bytes
// cannot begin one.
ReadOutcome readMessage(const Socket& socket, Clock::time_point deadline, std::string& message);
// False when the peer went away or the deadline passed.
bool sendAll(const Socket& socket, const std::string& bytes, Clock::time_point deadline);

} // namespace spyglass::rendezvous
