#pragma once
// The user's way to simulate a small GPU: a cap on the device memory Spyglass's own buffers may take
// (spyglass::setDeviceMemoryCap). Both programs read the environment variable SPYGLASS_GPU_MEMORY_CAP
// and the option --gpu-memory-cap BYTES; the option wins. Past the cap a GPU method fails with
// "GPU out of memory" exactly as it would on a GPU that is really too small.
#include <QString>

#include <cstdint>
#include <optional>

namespace spyglass::app {

inline constexpr const char* kGpuMemoryCapVariable = "SPYGLASS_GPU_MEMORY_CAP";

// "1048576", "512K", "64M", "2G", "1GiB", "0" (0 = no cap). K, M, G, T are powers of 1024 (an
// optional "iB" or "B" may follow). nullopt for anything else: negative, fractional, empty, overflow.
std::optional<std::uint64_t> parseByteSize(const QString& text);

// The cap in force (0: none), for status lines.
std::uint64_t gpuMemoryCap();

// "no cap", "4096 bytes", "1.5 MiB": for status lines.
QString describeGpuMemoryCap(std::uint64_t bytes);

// Applies SPYGLASS_GPU_MEMORY_CAP, then the option's value when given. On a bad value returns a
// message naming the source and the text (and leaves the cap as it was); empty on success.
QString applyGpuMemoryCap(const std::optional<QString>& optionValue);

} // namespace spyglass::app
