#include "io/mappedfile.h"

#include "spyglass/container.h"
#include "spyglass/error.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace spyglass {

MappedFile::MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(path + ": cannot open for reading");
    struct stat info {};
    if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
        const auto length = static_cast<std::size_t>(info.st_size);
        // MAP_POPULATE maps every cached page now, in one call, instead of a fault per page later.
        void* map = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (map != MAP_FAILED) {
            m_map = map;
            m_mapLength = length;
            m_bytes = std::string_view(static_cast<const char*>(map), length);
        }
    }
    ::close(fd);
    if (m_map == nullptr) {
        m_copy = readFileBytes(path);
        m_bytes = m_copy;
    }
}

MappedFile::~MappedFile() {
    if (m_map != nullptr) ::munmap(m_map, m_mapLength);
}

} // namespace spyglass
