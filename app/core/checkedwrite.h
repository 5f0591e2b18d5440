#pragma once
// The one way the application writes a file it exports, GUI and command-line tool alike: containers
// (segmented DIA, bit flags, hybrid), matrix files (Matrix Market, .mat, .npz, .npy), the regions
// JSON and the hybrid residual. The file is written beside the target under a temporary name that
// ends as the target's (writers that choose the format by the name choose the same one), read back
// from the disk and compared with what it was made from, and only then renamed over the target. A
// file that does not read back as meant is removed and the target keeps its old content: the export
// throws Error naming the target and what differs ("... does not read back ...; nothing written").
#include <QString>

#include <atomic>
#include <functional>
#include <string>

namespace spyglass::app {

// Writes the file at tempPath.
using WriteFile = std::function<void(const std::string& tempPath)>;
// Reads tempPath back: an empty string when it holds what was meant, else what differs. A parse
// error (spyglass::Error) counts as a difference.
using ReadBackFile = std::function<std::string(const std::string& tempPath)>;

// what: the kind of file in messages ("segmented-DIA container", "Matrix Market file").
// cancel (when set) is polled between the steps (CancelledError; nothing written).
void writeChecked(const QString& path, const std::string& what, const WriteFile& write, const ReadBackFile& readBack,
                  const std::atomic<bool>* cancel = nullptr);

// The same for a file made in memory: bytes are written, read back from the disk and handed to
// readBack (empty string: they hold what was meant).
using ReadBackBytes = std::function<std::string(const std::string& bytes, const std::string& source)>;
void writeCheckedBytes(const QString& path, const std::string& what, const std::string& bytes, const ReadBackBytes& readBack,
                       const std::atomic<bool>* cancel = nullptr);

// A text the program made (a report, a vector, a table): the bytes on the disk must be the text.
void writeCheckedText(const QString& path, const std::string& what, const std::string& text);

// The file name as the library takes it (the platform's encoding of the QString).
std::string localPath(const QString& path);

namespace testing {
// Called with the temporary file's path after it is written and before it is read back, so that a
// test can damage the file and see the export refused; empty (the default): nothing. Not thread-safe:
// set it while no export runs.
void setCheckedWriteTamper(std::function<void(const std::string& tempPath)> tamper);
} // namespace testing

} // namespace spyglass::app
