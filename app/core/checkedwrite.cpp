// Write beside the target, read back from the disk, compare, rename over the target.
#include "checkedwrite.h"

#include "spyglass/atomicfile.h"
#include "spyglass/error.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QUuid>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

namespace spyglass::app {

namespace {

std::function<void(const std::string&)>& tamper() {
    static std::function<void(const std::string&)> hook;
    return hook;
}

void throwIfCancelled(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load()) throw CancelledError();
}

// Removes the temporary file however the export ends (written: it has been renamed away already).
struct TempFile {
    std::string path;
    ~TempFile() {
        std::error_code ignored;
        std::filesystem::remove(std::filesystem::path(path), ignored);
    }
};

std::string readWhole(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot be opened to read it back");
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

} // namespace

std::string localPath(const QString& path) { return QFile::encodeName(path).toStdString(); }

void writeChecked(const QString& path, const std::string& what, const WriteFile& write, const ReadBackFile& readBack,
                  const std::atomic<bool>* cancel) {
    const std::string target = localPath(path);
    const QFileInfo info(path);
    // Hidden, unique, in the target's folder (the rename stays on one file system), ending as the
    // target's name so that a writer that picks its format by the suffix picks the same one.
    TempFile temp{localPath(info.dir().filePath(QStringLiteral(".check-%1-%2")
                                                    .arg(QUuid::createUuid().toString(QUuid::Id128).left(12), info.fileName())))};
    throwIfCancelled(cancel);
    write(temp.path);
    if (tamper()) tamper()(temp.path);
    throwIfCancelled(cancel);
    std::string difference;
    try {
        difference = readBack(temp.path);
    } catch (const CancelledError&) {
        throw;
    } catch (const Error& error) {
        difference = error.what();
    }
    if (!difference.empty())
        throw Error(target + ": the " + what + " does not read back as what it was made from (" + difference +
                    "); nothing written");
    throwIfCancelled(cancel);
    std::error_code error;
    // rename() replaces the target in one step (POSIX rename; MoveFileEx with replace on Windows).
    std::filesystem::rename(std::filesystem::path(temp.path), std::filesystem::path(target), error);
    if (error) throw Error(target + ": cannot be replaced: " + error.message());
}

void writeCheckedBytes(const QString& path, const std::string& what, const std::string& bytes, const ReadBackBytes& readBack,
                       const std::atomic<bool>* cancel) {
    writeChecked(
        path, what, [&bytes](const std::string& temp) { writeFileAtomically(temp, bytes); },
        [&readBack](const std::string& temp) { return readBack(readWhole(temp), temp); }, cancel);
}

void writeCheckedText(const QString& path, const std::string& what, const std::string& text) {
    writeCheckedBytes(path, what, text, [&text](const std::string& bytes, const std::string&) {
        return bytes == text ? std::string() : std::string("other bytes");
    });
}

namespace testing {
void setCheckedWriteTamper(std::function<void(const std::string& tempPath)> hook) { tamper() = std::move(hook); }
} // namespace testing

} // namespace spyglass::app
