// The rendezvous spec as users write it (--rendezvous file:PATH | tcp:HOST:PORT, --run-id).
#include "core/rendezvous_message.h"

#include "spyglass/error.h"
#include "spyglass/rendezvous.h"

#include <cstdlib>
#include <string>

namespace spyglass {
namespace {

[[noreturn]] void refuse(std::string_view text, const std::string& problem) {
    throw InputError("rendezvous '" + std::string(text) + "': " + problem);
}

std::uint16_t parsePort(std::string_view text, std::string_view port) {
    if (port.empty() || port.size() > 5) refuse(text, "the port must be a number from 1 to 65535");
    unsigned value = 0;
    for (const char c : port) {
        if (c < '0' || c > '9') refuse(text, "the port must be a number from 1 to 65535");
        value = value * 10 + unsigned(c - '0');
    }
    if (value < 1 || value > 65535) refuse(text, "the port must be a number from 1 to 65535");
    return static_cast<std::uint16_t>(value);
}

} // namespace

std::string RendezvousSpec::address() const {
    if (kind == RendezvousKind::File) return "file:" + path;
    const bool ipv6 = host.find(':') != std::string::npos;
    return "tcp:" + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string RendezvousSpec::describe() const { return "rendezvous " + address() + " run " + runId; }

RendezvousSpec parseRendezvousSpec(std::string_view text, std::string runId) {
    RendezvousSpec spec;
    constexpr std::string_view kFile = "file:", kTcp = "tcp:";
    if (text.substr(0, kFile.size()) == kFile) {
        spec.kind = RendezvousKind::File;
        spec.path = std::string(text.substr(kFile.size()));
        if (spec.path.empty()) refuse(text, "file: needs a path on a file system every rank sees");
        if (spec.path.back() == '/') refuse(text, "file: needs a file's path, not a folder's");
    } else if (text.substr(0, kTcp.size()) == kTcp) {
        spec.kind = RendezvousKind::Tcp;
        const std::string_view rest = text.substr(kTcp.size());
        const std::size_t colon = rest.rfind(':');
        if (colon == std::string_view::npos) refuse(text, "tcp: needs HOST:PORT");
        std::string_view host = rest.substr(0, colon);
        if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
        if (host.empty()) refuse(text, "tcp: needs the host where rank 0 runs");
        spec.host = std::string(host);
        spec.port = parsePort(text, rest.substr(colon + 1));
    } else {
        refuse(text, "expected file:PATH or tcp:HOST:PORT");
    }
    if (runId.empty()) {
        // Every rank of a Slurm job sees the same job id, and the next job another one.
        const char* job = std::getenv("SLURM_JOB_ID");
        if (job != nullptr) runId = job;
    }
    if (runId.empty()) refuse(text, "needs a run id shared by every rank: pass --run-id, or run under Slurm (SLURM_JOB_ID)");
    if (runId.size() > kMaxRendezvousRunId)
        refuse(text, "the run id is longer than " + std::to_string(kMaxRendezvousRunId) + " characters");
    for (const char c : runId)
        if (!rendezvous::isRunIdCharacter(c)) refuse(text, "the run id '" + runId + "' may hold only letters, digits and . _ - :");
    spec.runId = std::move(runId);
    return spec;
}

} // namespace spyglass
