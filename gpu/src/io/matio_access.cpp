// matio's process-wide state, used under one lock (see matio_access.h).
#include "io/matio_access.h"

#include <matio.h>

#if __has_include(<hdf5.h>)
#include <hdf5.h>
#define SPYGLASS_MATIO_HDF5 1
#endif

namespace spyglass::matio {

namespace {

std::mutex g_mutex;
bool g_forkedChild = false;  // set once in a sandbox child, before any Access there
std::string g_lastMessage;  // guarded by g_mutex (matio logs only from inside calls we make under it)

void keepMessage(int, char* message) {
    if (message) g_lastMessage = message;
}

} // namespace

void Access::inForkedChild() { g_forkedChild = true; }

Access::Access() : m_lock(g_mutex, std::defer_lock) {
    if (!g_forkedChild) m_lock.lock();
    static const bool prepared = [] {
        Mat_LogInitFunc("spyglass", &keepMessage);
        return true;
    }();
    (void)prepared;
#ifdef SPYGLASS_MATIO_HDF5
    // A damaged 7.3 file would print HDF5's error stack on stderr; the reader reports the failure.
    // (Per thread where HDF5 is built thread-safe, so set on every access.)
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
#endif
    g_lastMessage.clear();
}

std::string Access::lastMessage() const { return g_lastMessage; }

} // namespace spyglass::matio
