// libFuzzer harness for the TCP rendezvous's message reader (gpu/src/core/rendezvous_message.h), which
// reads bytes from a port anyone can reach. Properties: any byte string is either one message or
// refused with InputError - never a crash or a sanitizer report; a message accepted encodes back to
// the same bytes; and reading it as a stream (messageLength on every prefix) agrees with reading it
// whole: no prefix is refused that the whole is accepted with, and the length found is the whole's.
#include "core/rendezvous_message.h"
#include "spyglass/error.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

void require(bool condition) {
    if (!condition) std::abort();  // libFuzzer records the input as a crash
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace spyglass::rendezvous;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    RendezvousMessage message;
    try {
        message = decodeMessage(bytes);
    } catch (const spyglass::InputError&) {
        return 0;  // refused with a message: fine
    }
    require(encodeMessage(message) == bytes);
    require(message.rank < message.worldSize && !message.runId.empty());
    for (std::size_t prefix = 0; prefix <= size; ++prefix) {
        std::size_t length = 0;
        try {
            length = messageLength(bytes.substr(0, prefix));
        } catch (const spyglass::InputError&) {
            std::abort();  // a prefix of an accepted message was refused
        }
        require(length == 0 ? prefix < kMessageHeaderBytes : length == size);
    }
    return 0;
}
