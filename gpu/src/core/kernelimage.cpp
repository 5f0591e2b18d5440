// Whether a build's CUDA architectures can run on a device (see kernelImageMismatch in backend.h).
#include "spyglass/backend.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

namespace spyglass {

std::string kernelImageMismatch(const std::string& builtArchitectures, int major, int minor, const std::string& deviceName) {
    const int device = major * 10 + minor;
    std::string separated = builtArchitectures;  // "80;90" from CMake, or "80,90"
    for (char& c : separated)
        if (c == ',') c = ';';
    std::istringstream list(separated);
    std::string entry;
    std::string names;
    std::vector<int> named;
    while (std::getline(list, entry, ';')) {
        int arch = 0;
        std::size_t i = 0;
        while (i < entry.size() && std::isdigit(static_cast<unsigned char>(entry[i]))) arch = arch * 10 + (entry[i++] - '0');
        if (arch == 0) continue;
        const std::string suffix = entry.substr(i);
        // "90-real;90-virtual" (the default fat binary's end) names sm_90 once.
        if (std::find(named.begin(), named.end(), arch) == named.end()) {
            named.push_back(arch);
            names += (names.empty() ? "sm_" : ", sm_") + std::to_string(arch);
        }
        // "NN" builds SASS and PTX for NN; "NN-real" SASS only; "NN-virtual" PTX only. SASS runs on the
        // same major version at an equal or higher minor; PTX is compiled by the driver for any newer GPU.
        const bool sass = suffix != "-virtual";
        const bool ptx = suffix != "-real";
        if (sass && arch / 10 == major && arch % 10 <= minor) return {};
        if (ptx && arch <= device) return {};
    }
    if (names.empty()) return {};  // "native" or "all": nothing to say before trying
    return "Spyglass's CUDA kernels were built for " + names + ", and this GPU (" + deviceName + ") is sm_" + std::to_string(device) +
           ": rebuild with scripts/build -DCMAKE_CUDA_ARCHITECTURES=native (or add " + std::to_string(device) +
           " to the list); until then Spyglass runs on the CPU reference";
}

} // namespace spyglass
