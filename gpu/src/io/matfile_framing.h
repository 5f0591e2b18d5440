#pragma once
// The element framing of a version 5 .mat file, checked before matio reads it. matio allocates what a
// tag declares before it looks whether the file holds that much (a 1 KB file declaring a 2 GB row
// index array), and reads an element cut short by the end of the file as zeros.
#include <cstdint>
#include <string>

namespace spyglass::matfile {

// The version a .mat file's 128-byte header gives, 5 or 73, when its text ("MATLAB 5.0 MAT-file" or
// "MATLAB 7.3 MAT-file"), its version field (0x0100 or 0x0200) and its endian indicator ("IM" or
// "MI") agree. matio goes by the version field alone: a 7.3 text over a 0x0100 field would have it
// parse version 5 past the framing check below, a field of neither value its header-less version 4.
// Throws InputError naming the file and what disagrees.
int checkHeader(const std::string& path);

// Throws InputError naming the file and the byte when an element (at any depth, inside compressed
// elements too) declares more bytes than its container holds, a cell or struct declares more
// elements than its bytes can hold, or a matrix element's sub-elements are not those its class
// needs (matio reads them in order past the element's end). Files that are not version 5 are left
// alone.
void checkVersion5Framing(const std::string& path, std::uint64_t fileSize);

} // namespace spyglass::matfile
