// The child process a third-party parser runs in (see sandbox.h).
#include "io/sandbox.h"

#include "spyglass/error.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <new>
#include <thread>

namespace spyglass::sandbox {

namespace {

constexpr char kMagic[8] = {'S', 'P', 'Y', 'S', 'B', 'X', '1', '\n'};
constexpr char kAnswer = 'R', kFailure = 'E';
enum FailureKind : std::uint8_t { kInput = 1, kGeneral = 2, kOutOfMemory = 3, kCancelled = 4 };
// Exit codes of a child that could not say why in a frame.
constexpr int kExitOutOfMemory = 97, kExitPipe = 98, kExitOther = 99;
constexpr std::size_t kMaxMessage = 1 << 16;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Why the parent stopped reading before it had the whole answer.
struct Stopped {
    enum Why { EndOfAnswer, Timeout, Cancel, Malformed } why;
    std::string what;
};

// The child's address space inherited from the parent (its libraries, its heap): the limit is this
// plus the allowance, so a parent that already maps a lot (CUDA, a big matrix, ASan's shadow) does
// not starve the parser, and the parser gets its allowance and no more.
std::uint64_t inheritedAddressSpace() {
    std::FILE* statm = std::fopen("/proc/self/statm", "r");
    if (statm == nullptr) return 0;
    unsigned long long pages = 0;
    const int got = std::fscanf(statm, "%llu", &pages);
    std::fclose(statm);
    return got == 1 ? pages * std::uint64_t(::sysconf(_SC_PAGESIZE)) : 0;
}

// The parent's handlers (a test framework's crash handler, a debugger hook) are not the child's: a
// fatal signal there must end it, for the parent to report. Signals blocked in the forking thread are
// let through again. (Not called under ASan: maybe_unused keeps that build's -Werror quiet.)
[[maybe_unused]] void resetSignals() {
    for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU, SIGPIPE, SIGTERM, SIGINT, SIGHUP})
        ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

void applyLimits(const Limits& limits) {
    const std::uint64_t inherited = inheritedAddressSpace();
    if (inherited > 0) {
        rlimit memory{};
        ::getrlimit(RLIMIT_AS, &memory);
        const rlim_t wanted = rlim_t(inherited + limits.memoryBytes);
        if (memory.rlim_max == RLIM_INFINITY || wanted < memory.rlim_max) memory.rlim_cur = wanted;
        ::setrlimit(RLIMIT_AS, &memory);
    }
    rlimit cpu{};
    ::getrlimit(RLIMIT_CPU, &cpu);
    // SIGXCPU at the soft limit, SIGKILL a second later should it be caught.
    const rlim_t soft = rlim_t(std::max(1u, limits.cpuSeconds));
    if (cpu.rlim_max == RLIM_INFINITY || soft + 1 <= cpu.rlim_max) {
        cpu.rlim_cur = soft;
        cpu.rlim_max = soft + 1;
        ::setrlimit(RLIMIT_CPU, &cpu);
    }
    rlimit core{0, 0};
    ::setrlimit(RLIMIT_CORE, &core);
}

std::string signalName(int sig) {
    const char* name = ::strsignal(sig);
    return "signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : std::string());
}

std::string seconds(double s) {
    char text[32];
    std::snprintf(text, sizeof text, s == std::floor(s) ? "%.0f" : "%.1f", s);
    return text;
}

} // namespace

void Writer::raw(const void* data, std::size_t size) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(m_fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) ::_exit(kExitPipe);  // the parent went away (or killed us): nothing to tell
        p += n;
        size -= std::size_t(n);
    }
}

void Writer::bytes(const void* data, std::size_t size) {
    if (!m_started) {
        m_started = true;
        m_buffer.append(kMagic, sizeof kMagic);
        m_buffer.push_back(kAnswer);
    }
    if (m_buffer.size() + size > (std::size_t(1) << 16)) {
        flush();
        if (size > (std::size_t(1) << 16)) return raw(data, size);
    }
    if (size > 0) m_buffer.append(static_cast<const char*>(data), size);
}

void Writer::flush() {
    raw(m_buffer.data(), m_buffer.size());
    m_buffer.clear();
}

void Reader::bytes(void* data, std::size_t size) {
    char* p = static_cast<char*>(data);
    while (size > 0) {
        if (m_cancel != nullptr && m_cancel->load(std::memory_order_relaxed)) throw Stopped{Stopped::Cancel, {}};
        const double left = m_deadline - now();
        if (left <= 0) throw Stopped{Stopped::Timeout, {}};
        pollfd in{m_fd, POLLIN, 0};
        const int ready = ::poll(&in, 1, int(std::min(left, 0.1) * 1000) + 1);
        if (ready < 0 && errno != EINTR) throw Stopped{Stopped::EndOfAnswer, {}};
        if (ready <= 0) continue;
        const ssize_t n = ::read(m_fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw Stopped{Stopped::EndOfAnswer, {}};
        p += n;
        size -= std::size_t(n);
    }
}

std::string Reader::string(std::size_t maxLength) {
    const auto length = value<std::uint64_t>();
    if (length > maxLength) malformed("a string of " + std::to_string(length) + " bytes (at most " + std::to_string(maxLength) + ")");
    std::string s(std::size_t(length), '\0');
    bytes(s.data(), s.size());
    return s;
}

void Reader::malformed(const std::string& what) { throw Stopped{Stopped::Malformed, what}; }

bool Reader::atEnd() {
    char extra = 0;
    try {
        bytes(&extra, 1);
    } catch (const Stopped& stopped) {
        if (stopped.why == Stopped::EndOfAnswer) return true;
        throw;
    }
    return false;
}

// One child: forked in the constructor, always reaped (killed first if need be) by the time the
// parent leaves run().
class ChildRunner {
public:
    ChildRunner(const std::string& name, const std::string& where, const Limits& limits) : m_name(name), m_where(where), m_limits(limits) {}
    ~ChildRunner() {
        if (m_fd >= 0) ::close(m_fd);
        if (m_pid > 0 && !m_reaped) {
            ::kill(m_pid, SIGKILL);
            reap(now() + 5);
        }
    }

    void start(const std::function<void(Writer&)>& child) {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(m_where + ": cannot start the " + m_name + " reader: " + std::strerror(errno));
        m_deadline = now() + m_limits.wallSeconds;
        m_pid = ::fork();
        if (m_pid < 0) {
            const int error = errno;
            ::close(fds[0]);
            ::close(fds[1]);
            throw Error(m_where + ": cannot start the " + m_name + " reader: " + std::strerror(error));
        }
        if (m_pid == 0) {
            ::close(fds[0]);
            runChild(fds[1], child);
        }
        ::close(fds[1]);
        m_fd = fds[0];
    }

    void answer(const std::function<void(Reader&)>& parent, const std::atomic<bool>* cancel) {
        Reader reader(m_fd, m_deadline, cancel);
        std::uint8_t failure = 0;
        std::string message;
        try {
            char magic[sizeof kMagic];
            reader.bytes(magic, sizeof magic);
            if (std::memcmp(magic, kMagic, sizeof magic) != 0) reader.malformed("it does not start with the frame's magic");
            const char status = reader.value<char>();
            if (status == kAnswer) {
                parent(reader);
            } else if (status == kFailure) {
                failure = reader.value<std::uint8_t>();
                message = reader.string(kMaxMessage);
            } else {
                reader.malformed("unknown status " + std::to_string(int(status)));
            }
            if (!reader.atEnd()) reader.malformed("it goes on past its end");
        } catch (const Stopped& stopped) {
            stop(stopped);
        }
        reap(m_deadline + 5);
        if (!(WIFEXITED(m_status) && WEXITSTATUS(m_status) == 0)) stoppedBecause(describeStatus());
        switch (failure) {
        case 0: return;
        case kInput: throw InputError(message);
        case kOutOfMemory: stoppedBecause(outOfMemory());
        case kCancelled: throw CancelledError();
        default: throw Error(message);
        }
    }

private:
    [[noreturn]] static void runChild(int fd, const std::function<void(Writer&)>& child) {
        Writer writer(fd);
        int code = 0;
        std::uint8_t failure = 0;
        std::string message;
        try {
            child(writer);
            if (!writer.started()) writer.bytes(nullptr, 0);
            writer.flush();
        } catch (const std::bad_alloc&) {
            failure = kOutOfMemory;
        } catch (const CancelledError&) {
            failure = kCancelled;
        } catch (const InputError& e) {
            failure = kInput, message = e.what();
        } catch (const std::exception& e) {
            failure = kGeneral, message = e.what();
        } catch (...) {
            code = kExitOther;
        }
        if (failure != 0) {
            if (writer.started()) {
                code = failure == kOutOfMemory ? kExitOutOfMemory : kExitOther;
            } else {
                if (message.size() > kMaxMessage) message.resize(kMaxMessage);
                std::string frame(kMagic, sizeof kMagic);
                frame.push_back(kFailure);
                frame.push_back(char(failure));
                const std::uint64_t length = message.size();
                frame.append(reinterpret_cast<const char*>(&length), sizeof length);
                frame += message;
                writer.raw(frame.data(), frame.size());
            }
        }
        ::_exit(code);
    }

    void stop(const Stopped& stopped) {
        if (stopped.why == Stopped::EndOfAnswer) {
            reap(m_deadline + 5);  // it went away: its status says why
            stoppedBecause(describeStatus());
        }
        ::kill(m_pid, SIGKILL);
        reap(now() + 5);
        if (stopped.why == Stopped::Cancel) throw CancelledError();
        if (stopped.why == Stopped::Timeout) stoppedBecause("it took longer than " + seconds(m_limits.wallSeconds) + " s");
        stoppedBecause("its answer is malformed: " + stopped.what);
    }

    void reap(double until) {
        while (!m_reaped) {
            const pid_t got = ::wait4(m_pid, &m_status, WNOHANG, &m_usage);
            if (got == m_pid || (got < 0 && errno != EINTR)) {
                m_reaped = true;
                break;
            }
            if (now() > until) {
                ::kill(m_pid, SIGKILL);
                until = now() + 5;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }

    std::string outOfMemory() const { return "it ran out of its " + std::to_string(m_limits.memoryBytes >> 20) + " MB memory limit"; }

    std::string describeStatus() const {
        if (WIFSIGNALED(m_status)) {
            const int sig = WTERMSIG(m_status);
            const double cpu = double(m_usage.ru_utime.tv_sec + m_usage.ru_stime.tv_sec) +
                               1e-6 * double(m_usage.ru_utime.tv_usec + m_usage.ru_stime.tv_usec);
            if (sig == SIGXCPU || (sig == SIGKILL && cpu >= double(m_limits.cpuSeconds)))
                return "it used more than its " + std::to_string(m_limits.cpuSeconds) + " s of CPU time";
            return "it was killed by " + signalName(sig);
        }
        if (WIFEXITED(m_status)) {
            const int code = WEXITSTATUS(m_status);
            if (code == kExitOutOfMemory) return outOfMemory();
            if (code == 0) return "it ended without an answer";
            return "it ended with exit status " + std::to_string(code) + " before it answered";
        }
        return "it ended without an answer";
    }

    [[noreturn]] void stoppedBecause(const std::string& reason) const {
        throw InputError(m_where + ": the " + m_name + " reader stopped: " + reason);
    }

    std::string m_name, m_where;
    Limits m_limits;
    pid_t m_pid = -1;
    int m_fd = -1;
    double m_deadline = 0;
    bool m_reaped = false;
    int m_status = 0;
    rusage m_usage{};
};

void run(const std::string& name, const std::string& where, const Limits& limits, const std::function<void(Writer&)>& child,
         const std::function<void(Reader&)>& parent, const std::atomic<bool>* cancel) {
    ChildRunner runner(name, where, limits);
    runner.start([&](Writer& writer) {
#if !defined(__SANITIZE_ADDRESS__)
        resetSignals();  // (under ASan its own handlers stay: they print the report, then abort)
#endif
        applyLimits(limits);
        child(writer);
    });
    runner.answer(parent, cancel);
}

} // namespace spyglass::sandbox
