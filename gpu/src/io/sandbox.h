#pragma once
// Runs a parser Spyglass does not control (matio, HDF5) in a forked child process under limits on
// memory (RLIMIT_AS above what the child inherits), CPU time (RLIMIT_CPU) and wall-clock time (the
// parent kills it), and reads its answer back through a pipe. A crash, a sanitizer abort or a limit
// hit in the child becomes an InputError "WHERE: the NAME reader stopped: REASON" in the parent; the
// parent's own state is never touched by the parser.
//
// The answer is a small framed binary (magic, status, then what the caller's functions write and
// read). The parent must treat it as untrusted input: the child parsed a hostile file, so the
// caller's reading function validates every count before it sizes anything by it.
//
// Forking a multi-threaded process is safe here because the child only runs the parser, writes to
// the pipe and calls _exit (no atexit handlers, no stdio flush, no locks other threads held: the
// caller takes the parser's own lock before the fork).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>

namespace spyglass::sandbox {

struct Limits {
    std::uint64_t memoryBytes = std::uint64_t(512) << 20;  // address space the child may add to what it inherits
    unsigned cpuSeconds = 10;
    double wallSeconds = 30;
};

// The child's side of the pipe: buffered, and the frame header goes out with the first bytes.
class Writer {
public:
    explicit Writer(int fd) : m_fd(fd) {}
    void bytes(const void* data, std::size_t size);
    template <typename T>
    void value(T v) {
        static_assert(std::is_trivially_copyable_v<T>);
        bytes(&v, sizeof v);
    }
    void string(const std::string& s) {
        value<std::uint64_t>(s.size());
        bytes(s.data(), s.size());
    }
    void flush();
    bool started() const { return m_started; }

private:
    friend class ChildRunner;
    void raw(const void* data, std::size_t size);
    int m_fd;
    bool m_started = false;
    std::string m_buffer;
};

// The parent's side: every read waits with the deadline and the cancel flag in view, and throws
// (internally) when the child goes away before it has written what is asked for.
class Reader {
public:
    void bytes(void* data, std::size_t size);
    template <typename T>
    T value() {
        static_assert(std::is_trivially_copyable_v<T>);
        T v;
        bytes(&v, sizeof v);
        return v;
    }
    // A string of at most maxLength bytes (a longer declaration is a malformed answer).
    std::string string(std::size_t maxLength);
    // Throws InputError "the answer is malformed: WHAT" (reported as the reader stopping).
    [[noreturn]] void malformed(const std::string& what);

private:
    friend class ChildRunner;
    Reader(int fd, double deadline, const std::atomic<bool>* cancel) : m_fd(fd), m_deadline(deadline), m_cancel(cancel) {}
    bool atEnd();
    int m_fd;
    double m_deadline;
    const std::atomic<bool>* m_cancel;
};

// Forks; the child calls `child` (which writes its answer, or throws: an InputError or Error there is
// re-thrown in the parent with its message), the parent calls `parent` to read that answer. `name`
// says which reader in messages ("MATLAB"), `where` names the file.
void run(const std::string& name, const std::string& where, const Limits& limits, const std::function<void(Writer&)>& child,
         const std::function<void(Reader&)>& parent, const std::atomic<bool>* cancel = nullptr);

} // namespace spyglass::sandbox
