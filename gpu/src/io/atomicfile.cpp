// Atomic replace: temporary file beside the target (rename is only atomic within one file
// system), fsync before rename so a crash cannot expose an empty file under the final name.
#include "spyglass/atomicfile.h"

#include "spyglass/error.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace spyglass {
namespace {

constexpr mode_t kNewFileMode = 0644;

[[noreturn]] void failWith(const std::string& path, const char* action, int errorNumber) {
    throw Error("cannot write " + path + ": " + action + " failed: " + std::strerror(errorNumber));
}

std::string directoryOf(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) {
        return ".";
    }
    return slash == 0 ? "/" : path.substr(0, slash);
}

// Removes the temporary file unless released; keeps every failure path free of leftovers.
class TemporaryFile {
public:
    explicit TemporaryFile(const std::string& target) : m_name(target + ".tmp-XXXXXX") {
        std::vector<char> pattern(m_name.begin(), m_name.end());
        pattern.push_back('\0');
        m_fd = ::mkstemp(pattern.data());
        if (m_fd < 0) {
            failWith(target, "creating a temporary file", errno);
        }
        m_name.assign(pattern.data());
    }
    ~TemporaryFile() {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        if (!m_released) {
            ::unlink(m_name.c_str());
        }
    }
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;

    int fd() const { return m_fd; }
    const std::string& name() const { return m_name; }
    int close() {
        const int result = ::close(m_fd);
        m_fd = -1;
        return result;
    }
    void release() { m_released = true; }

private:
    std::string m_name;
    int m_fd = -1;
    bool m_released = false;
};

} // namespace

void writeFileAtomically(const std::string& path, std::string_view contents) {
    if (path.empty()) {
        throw Error("cannot write a file with an empty name");
    }
    struct stat existing {};
    if (::stat(path.c_str(), &existing) == 0 && S_ISDIR(existing.st_mode)) {
        failWith(path, "replacing", EISDIR);
    }
    TemporaryFile temporary(path);
    // mkstemp creates 0600; keep the old file's permissions, or the usual ones for a new file.
    const mode_t mode = ::stat(path.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : kNewFileMode;
    if (::fchmod(temporary.fd(), mode) != 0) {
        failWith(path, "setting permissions", errno);
    }
    const char* data = contents.data();
    std::size_t left = contents.size();
    while (left > 0) {
        const ssize_t written = ::write(temporary.fd(), data, left);
        if (written < 0) {
            if (errno == EINTR) {
                continue;
            }
            failWith(path, "writing", errno);
        }
        data += written;
        left -= static_cast<std::size_t>(written);
    }
    if (::fsync(temporary.fd()) != 0) {
        failWith(path, "syncing", errno);
    }
    if (temporary.close() != 0) {
        failWith(path, "closing", errno);
    }
    if (::rename(temporary.name().c_str(), path.c_str()) != 0) {
        failWith(path, "renaming the temporary file", errno);
    }
    temporary.release();
    // Make the rename itself durable; failure here does not undo a complete, visible file.
    const int directory = ::open(directoryOf(path).c_str(), O_RDONLY | O_DIRECTORY);
    if (directory >= 0) {
        ::fsync(directory);
        ::close(directory);
    }
}

} // namespace spyglass
