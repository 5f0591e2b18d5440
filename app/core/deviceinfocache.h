#pragma once
// The CUDA device query, run once per process on a worker thread and kept. Asking the driver takes
// from milliseconds to seconds (driver start-up, a busy or missing GPU), so the GUI never asks it
// itself: panels show a neutral "checking" state and fill in what the device allows when ready()
// arrives (whenReady()). The device does not change while the program runs, so one answer serves all.
#include "spyglass/backend.h"

#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <functional>
#include <mutex>
#include <optional>

namespace spyglass::app {

class DeviceInfoCache : public QObject {
    Q_OBJECT
public:
    using Query = std::function<DeviceInfo()>;

    // `query` runs at most once, on a worker thread; tests pass one that records where it ran.
    explicit DeviceInfoCache(Query query, QObject* parent = nullptr);
    ~DeviceInfoCache() override;

    // The application's cache (spyglass::cudaDeviceInfo), owned by the QCoreApplication. Create it
    // on the GUI thread (main.cpp starts it before the window exists).
    static DeviceInfoCache& shared();

    // Starts the query; later calls do nothing. Any thread.
    void start();
    // The answer, or nothing while the query runs (starts it). Any thread.
    std::optional<DeviceInfo> current() const;
    // Blocks until the answer is there (starts it). For worker threads: never call it on the GUI thread.
    DeviceInfo get();
    // On this object's thread (the GUI's): calls `apply` at once when the answer was announced, else
    // once when ready() arrives (not at all if `context` is gone by then).
    void whenReady(QObject* context, std::function<void(const DeviceInfo&)> apply);

signals:
    void ready(const spyglass::DeviceInfo& info);

private:
    Query m_query;
    mutable std::once_flag m_started;
    QFuture<DeviceInfo> m_future;
    QFutureWatcher<DeviceInfo> m_watcher;
    bool m_announced = false;  // ready() was emitted (this object's thread only)
};

// Whether a GPU is there (the shared cache's answer; waits for it), with the reason when not. For
// worker threads, the command line and tests: the GUI reads current()/whenReady() instead.
bool gpuAvailable(QString* reason = nullptr);

} // namespace spyglass::app
