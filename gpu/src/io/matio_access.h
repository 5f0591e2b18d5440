#pragma once
// What the .mat reader and writer share around matio: one lock, as neither matio's logging nor a
// serial HDF5 build may be used from two threads at once, and matio's messages caught for our errors
// instead of printed on stderr.
#include <mutex>
#include <string>

namespace spyglass::matio {

// Holds the lock for its lifetime; the first one sets up logging and silences HDF5's error stack.
class Access {
public:
    Access();
    // What matio last logged during this access ("" when nothing), for an error message.
    std::string lastMessage() const;
    // In a child forked while the parent held an Access (the sandboxed reader): the lock's copy there
    // is held for good, and the child is single-threaded, so later Accesses in it do not lock.
    static void inForkedChild();

private:
    std::unique_lock<std::mutex> m_lock;
};

} // namespace spyglass::matio
