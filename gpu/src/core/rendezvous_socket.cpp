// Deadline-bounded POSIX socket calls for the TCP rendezvous (rendezvous_socket.h). Sockets are
// non-blocking; every wait is a poll() with the time left.
#include "core/rendezvous_socket.h"

#include "core/rendezvous_message.h"

#include "spyglass/error.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace spyglass::rendezvous {
namespace {

int millisecondsLeft(Clock::time_point deadline) {
    // Rounded up: poll() waking a fraction of a millisecond early would give up before the deadline.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
}

// True when fd is ready for `events` before the deadline (EINTR is waited through).
bool waitFor(int fd, short events, Clock::time_point deadline) {
    for (;;) {
        pollfd entry{fd, events, 0};
        const int ready = ::poll(&entry, 1, millisecondsLeft(deadline));
        if (ready > 0) return true;
        if (ready == 0) return false;
        if (errno != EINTR) return false;
    }
}

void makeNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL, 0) | O_NONBLOCK); }

struct AddressListDeleter {
    void operator()(addrinfo* list) const { ::freeaddrinfo(list); }
};
using AddressList = std::unique_ptr<addrinfo, AddressListDeleter>;

AddressList resolve(const std::string& host, std::uint16_t port, int flags, std::string& error) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = flags;
    addrinfo* list = nullptr;
    const int result = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &list);
    if (result != 0) {
        error = std::string("cannot resolve ") + host + ": " + ::gai_strerror(result);
        return nullptr;
    }
    return AddressList(list);
}

std::string nameOf(const sockaddr_storage& address) {
    char host[INET6_ADDRSTRLEN] = "?";
    std::uint16_t port = 0;
    if (address.ss_family == AF_INET) {
        const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
        ::inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
        port = ntohs(v4->sin_port);
        return std::string(host) + ":" + std::to_string(port);
    }
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
    port = ntohs(v6->sin6_port);
    return "[" + std::string(host) + "]:" + std::to_string(port);
}

} // namespace

Socket::~Socket() {
    if (m_fd >= 0) ::close(m_fd);
}

Socket& Socket::operator=(Socket&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0) ::close(m_fd);
        m_fd = other.m_fd;
        other.m_fd = -1;
    }
    return *this;
}

Socket listenOn(const std::string& host, std::uint16_t port) {
    std::string error;
    const AddressList hostAddresses = resolve(host, port, 0, error);
    if (!hostAddresses) throw Error(error);
    // Rank 0 listens on every address of its host, as torchrun's store does: the name the other
    // ranks use may resolve to another interface than the one this host would pick.
    const int family = hostAddresses->ai_family;
    sockaddr_storage address{};
    socklen_t length = 0;
    if (family == AF_INET6) {
        auto* v6 = reinterpret_cast<sockaddr_in6*>(&address);
        v6->sin6_family = AF_INET6;
        v6->sin6_addr = in6addr_any;
        v6->sin6_port = htons(port);
        length = sizeof(sockaddr_in6);
    } else {
        auto* v4 = reinterpret_cast<sockaddr_in*>(&address);
        v4->sin_family = AF_INET;
        v4->sin_addr.s_addr = htonl(INADDR_ANY);
        v4->sin_port = htons(port);
        length = sizeof(sockaddr_in);
    }
    Socket listener(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!listener.valid()) throw Error(std::string("cannot open a socket: ") + std::strerror(errno));
    const int yes = 1;
    ::setsockopt(listener.fd(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(listener.fd(), reinterpret_cast<const sockaddr*>(&address), length) != 0)
        throw Error("cannot listen on port " + std::to_string(port) + ": " + std::strerror(errno));
    if (::listen(listener.fd(), SOMAXCONN) != 0)
        throw Error("cannot listen on port " + std::to_string(port) + ": " + std::strerror(errno));
    makeNonBlocking(listener.fd());
    return listener;
}

Socket acceptBefore(const Socket& listener, Clock::time_point deadline, std::string& peer) {
    while (waitFor(listener.fd(), POLLIN, deadline)) {
        sockaddr_storage address{};
        socklen_t length = sizeof address;
        Socket client(::accept4(listener.fd(), reinterpret_cast<sockaddr*>(&address), &length, SOCK_NONBLOCK | SOCK_CLOEXEC));
        if (client.valid()) {
            peer = nameOf(address);
            return client;
        }
        // EAGAIN: a connection that was reset before it was accepted; wait for the next.
        if (Clock::now() >= deadline) break;
    }
    return Socket();
}

Socket connectBefore(const std::string& host, std::uint16_t port, Clock::time_point deadline, std::string& error) {
    const AddressList addresses = resolve(host, port, 0, error);
    for (const addrinfo* a = addresses.get(); a != nullptr; a = a->ai_next) {
        Socket socket(::socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
        if (!socket.valid()) {
            error = std::strerror(errno);
            continue;
        }
        // Non-blocking, so an unreachable host costs the time left, not the system's SYN timeout.
        if (::connect(socket.fd(), a->ai_addr, a->ai_addrlen) != 0) {
            if (errno != EINPROGRESS) {
                error = std::strerror(errno);
                continue;
            }
            if (!waitFor(socket.fd(), POLLOUT, deadline)) {
                error = "connection timed out";
                continue;
            }
            int result = 0;
            socklen_t length = sizeof result;
            ::getsockopt(socket.fd(), SOL_SOCKET, SO_ERROR, &result, &length);
            if (result != 0) {
                error = std::strerror(result);
                continue;
            }
        }
        return socket;
    }
    return Socket();
}

ReadOutcome readMessage(const Socket& socket, Clock::time_point deadline, std::string& message) {
    message.clear();
    char buffer[4096];
    for (;;) {
        const std::size_t length = messageLength(message);  // InputError as soon as it cannot be one
        if (length != 0 && message.size() >= length) {
            message.resize(length);
            return ReadOutcome::Message;
        }
        if (!waitFor(socket.fd(), POLLIN, deadline)) return ReadOutcome::TimedOut;
        // Never read past the message's end (what follows would be another's business).
        const std::size_t want = length == 0 ? kMessageHeaderBytes - message.size() : length - message.size();
        const ssize_t got = ::recv(socket.fd(), buffer, std::min(sizeof buffer, want), 0);
        if (got == 0) return ReadOutcome::Closed;
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            return ReadOutcome::Closed;
        }
        message.append(buffer, static_cast<std::size_t>(got));
    }
}

bool sendAll(const Socket& socket, const std::string& bytes, Clock::time_point deadline) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
        const ssize_t done = ::send(socket.fd(), bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (done > 0) {
            sent += static_cast<std::size_t>(done);
            continue;
        }
        if (done < 0 && errno == EINTR) continue;
        if (done < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && waitFor(socket.fd(), POLLOUT, deadline)) continue;
        return false;
    }
    return true;
}

} // namespace spyglass::rendezvous
