// The file rendezvous: rank 0 publishes PATH (run id, world size, its bytes in hex), each other rank
// reads it and leaves PATH.rank<r> (run id, rank, world size); rank 0 waits for every marker and then
// removes them and PATH. Both are written whole (write, fsync, rename), so a reader on another host
// sees the old file or the new one, never half of one. Whatever names another run is someone else's.
#include "core/rendezvous_kinds.h"

#include "spyglass/atomicfile.h"
#include "spyglass/error.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

namespace spyglass::rendezvous {
namespace {

constexpr const char* kBanner = "spyglass rendezvous 1";

std::string markerPath(const RendezvousSpec& spec, int rank) { return spec.path + ".rank" + std::to_string(rank); }

std::string toHex(const std::vector<std::uint8_t>& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string text;
    text.reserve(bytes.size() * 2);
    for (const std::uint8_t b : bytes) {
        text += digits[b >> 4];
        text += digits[b & 15];
    }
    return text;
}

std::optional<std::vector<std::uint8_t>> fromHex(const std::string& text) {
    if (text.size() % 2 != 0 || text.size() / 2 > kMaxRendezvousBlob) return std::nullopt;
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
    };
    std::vector<std::uint8_t> bytes(text.size() / 2);
    for (std::size_t k = 0; k < bytes.size(); ++k) {
        const int high = nibble(text[2 * k]), low = nibble(text[2 * k + 1]);
        if (high < 0 || low < 0) return std::nullopt;
        bytes[k] = static_cast<std::uint8_t>(high << 4 | low);
    }
    return bytes;
}

// "key value" lines after the banner; nullopt for a file that is absent or not a rendezvous file.
std::optional<std::map<std::string, std::string>> readFields(const std::string& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::string line;
    if (!std::getline(in, line) || line != kBanner) return std::nullopt;
    std::map<std::string, std::string> fields;
    while (std::getline(in, line)) {
        const std::size_t space = line.find(' ');
        if (space == std::string::npos) return std::nullopt;
        fields[line.substr(0, space)] = line.substr(space + 1);
    }
    return fields;
}

std::optional<int> intField(const std::map<std::string, std::string>& fields, const char* key) {
    const auto it = fields.find(key);
    if (it == fields.end() || it->second.empty() || it->second.size() > 9) return std::nullopt;
    int value = 0;
    for (const char c : it->second) {
        if (c < '0' || c > '9') return std::nullopt;
        value = value * 10 + (c - '0');
    }
    return value;
}

std::string runOf(const std::optional<std::map<std::string, std::string>>& fields) {
    if (!fields) return {};
    const auto it = fields->find("run");
    return it == fields->end() ? std::string() : it->second;
}

void removeQuietly(const std::string& path) { ::unlink(path.c_str()); }

// Creates path with contents unless a file is there already (then false, and that file is left as
// it was): two processes that both claim a rank cannot both succeed. link() is atomic on local and
// network file systems; where it is not offered the marker is renamed into place instead.
bool createExclusively(const std::string& path, const std::string& contents) {
    static std::atomic<unsigned> counter{0};
    const std::string temporary = path + ".new-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
                                  std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()));
    writeFileAtomically(temporary, contents);
    if (::link(temporary.c_str(), path.c_str()) == 0) {
        removeQuietly(temporary);
        return true;
    }
    const int error = errno;
    if (error == EEXIST) {
        removeQuietly(temporary);
        return false;
    }
    if (error == EPERM || error == ENOSYS || error == EOPNOTSUPP) {
        if (::rename(temporary.c_str(), path.c_str()) == 0) return true;
    }
    const int renameError = errno;
    removeQuietly(temporary);
    throw Error("cannot create " + path + ": " + std::strerror(error == EEXIST ? renameError : error));
}

// Rank 0's files go when it returns, arrived or not: a late rank must not find bytes of a run
// whose rank 0 has given up.
class PublishedFiles {
public:
    PublishedFiles(const RendezvousSpec& spec, int worldSize) : m_spec(spec), m_worldSize(worldSize) {}
    ~PublishedFiles() {
        removeQuietly(m_spec.path);
        for (int r = 1; r < m_worldSize; ++r) removeQuietly(markerPath(m_spec, r));
    }
    PublishedFiles(const PublishedFiles&) = delete;
    PublishedFiles& operator=(const PublishedFiles&) = delete;

private:
    const RendezvousSpec& m_spec;
    int m_worldSize;
};

} // namespace

std::vector<std::uint8_t> publishThroughFile(const RendezvousSpec& spec, int worldSize, const std::vector<std::uint8_t>& blob,
                                             Clock::time_point deadline, std::chrono::milliseconds timeout) {
    const std::string place = spec.describe() + ": ";
    if (runOf(readFields(spec.path)) == spec.runId)
        throw InputError(place + spec.path + " already holds this run's bytes: another process started as rank 0, or the run id " +
                         spec.runId + " was used before (remove the file or pass another run id)");
    // Markers of an earlier run that used this run id would count as arrivals; none of this run's
    // can exist yet, since no rank writes one before it has read the file published below.
    for (int r = 1; r < worldSize; ++r) removeQuietly(markerPath(spec, r));
    std::ostringstream text;
    text << kBanner << "\nrun " << spec.runId << "\nworld " << worldSize << "\nblob " << toHex(blob) << "\n";
    PublishedFiles published(spec, worldSize);
    writeFileAtomically(spec.path, text.str());  // replaces a stale file of another run whole

    std::vector<bool> arrived(std::size_t(worldSize), false);
    arrived[0] = true;
    for (int attempt = 0;; ++attempt) {
        std::vector<int> missing;
        for (int r = 1; r < worldSize; ++r) {
            if (arrived[std::size_t(r)]) continue;
            const auto fields = readFields(markerPath(spec, r));
            if (runOf(fields) != spec.runId) {
                missing.push_back(r);
                continue;
            }
            const std::optional<int> world = intField(*fields, "world");
            if (world != worldSize)
                throw InputError(place + "rank " + std::to_string(r) + " was started with world size " +
                                 (world ? std::to_string(*world) : "?") + ", rank 0 with " + std::to_string(worldSize));
            arrived[std::size_t(r)] = true;
        }
        if (missing.empty()) return blob;
        if (Clock::now() >= deadline)
            throw InputError(place + missingRanksText(missing, worldSize) + " did not arrive within " + secondsText(timeout));
        pause(attempt, deadline);
    }
}

std::vector<std::uint8_t> checkInThroughFile(const RendezvousSpec& spec, int rank, int worldSize, Clock::time_point deadline,
                                             std::chrono::milliseconds timeout) {
    const std::string place = spec.describe() + ", rank " + std::to_string(rank) + ": ";
    std::optional<std::map<std::string, std::string>> fields;
    std::string otherRun;  // what the file held while this rank waited, for the timeout's message
    for (int attempt = 0;; ++attempt) {
        fields = readFields(spec.path);
        const std::string run = runOf(fields);
        if (run == spec.runId) break;
        if (!run.empty()) otherRun = run;
        if (Clock::now() >= deadline)
            throw InputError(place + "rank 0 did not publish " + spec.path + " within " + secondsText(timeout) +
                             (otherRun.empty() ? std::string() : " (the file there is from run " + otherRun + ", not this one)"));
        pause(attempt, deadline);
    }
    const std::optional<int> world = intField(*fields, "world");
    if (world != worldSize)
        throw InputError(place + "rank 0 was started with world size " + (world ? std::to_string(*world) : "?") +
                         ", this rank with " + std::to_string(worldSize));
    const auto blobField = fields->find("blob");
    const auto blob = blobField == fields->end() ? std::nullopt : fromHex(blobField->second);
    if (!blob) throw InputError(place + spec.path + " holds no readable bytes from rank 0");

    std::ostringstream text;
    text << kBanner << "\nrun " << spec.runId << "\nrank " << rank << "\nworld " << worldSize << "\n";
    const std::string marker = markerPath(spec, rank);
    if (!createExclusively(marker, text.str())) {
        if (runOf(readFields(marker)) == spec.runId)
            throw InputError(place + "another process already checked in as rank " + std::to_string(rank) + " (" + marker +
                             "): two processes were started with one rank");
        writeFileAtomically(marker, text.str());  // a stale marker of another run
    }
    return *blob;
}

} // namespace spyglass::rendezvous
