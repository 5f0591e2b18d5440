#pragma once
// A whole file's bytes, read-only, for readers that decode straight from them: mapped where the system
// allows (no copy, pages come from the page cache as they are touched), else read into memory. The
// container writer replaces files by rename, so a mapped file is never truncated under the reader.
#include <string>
#include <string_view>

namespace spyglass {

class MappedFile {
public:
    // InputError "PATH: cannot open for reading" / "read failed", as readFileBytes.
    explicit MappedFile(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::string_view bytes() const { return m_bytes; }

private:
    void* m_map = nullptr;
    std::size_t m_mapLength = 0;
    std::string m_copy;  // when the file could not be mapped (empty file, a file system without mmap)
    std::string_view m_bytes;
};

} // namespace spyglass
