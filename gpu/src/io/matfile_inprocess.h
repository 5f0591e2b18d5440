#pragma once
// The .mat reader itself (matio and HDF5 in this process). Only the sandbox's child process and the
// fuzzer call these; everything else goes through spyglass/matfile.h, which runs them in a child
// with limits (matfile_sandbox.cpp). Same contracts as listMatVariables and readMatFile.
#include "spyglass/matfile.h"

namespace spyglass::matfile {

std::vector<MatVariable> listVariablesInProcess(const std::string& path);
Matrix readInProcess(const std::string& path, const std::string& variable, Count maxEntries, const std::atomic<bool>* cancel);

} // namespace spyglass::matfile
