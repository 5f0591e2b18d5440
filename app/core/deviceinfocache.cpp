#include "deviceinfocache.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThread>
#include <QtConcurrent>

#include <utility>

namespace spyglass::app {

DeviceInfoCache::DeviceInfoCache(Query query, QObject* parent) : QObject(parent), m_query(std::move(query)) {
    connect(&m_watcher, &QFutureWatcher<DeviceInfo>::finished, this, [this] {
        m_announced = true;
        emit ready(m_future.result());
    });
}

DeviceInfoCache::~DeviceInfoCache() {
    // The query may still run (a test's injected one captures its locals): never outlive it.
    m_future.waitForFinished();  // a default QFuture is finished already
}

DeviceInfoCache& DeviceInfoCache::shared() {
    // Parented to the application so that it goes with it (a test's second QApplication gets a new one).
    static QPointer<DeviceInfoCache> cache;
    Q_ASSERT(cache || !QCoreApplication::instance() || QThread::currentThread() == QCoreApplication::instance()->thread());
    if (!cache) cache = new DeviceInfoCache([] { return cudaDeviceInfo(); }, QCoreApplication::instance());
    return *cache;
}

void DeviceInfoCache::start() {
    std::call_once(m_started, [this] {
        m_future = QtConcurrent::run(m_query);
        // The watcher lives on this object's thread, so ready() is emitted there whichever thread started.
        QMetaObject::invokeMethod(this, [this] { m_watcher.setFuture(m_future); }, Qt::AutoConnection);
    });
}

std::optional<DeviceInfo> DeviceInfoCache::current() const {
    const_cast<DeviceInfoCache*>(this)->start();
    if (!m_future.isFinished()) return std::nullopt;
    return m_future.result();
}

DeviceInfo DeviceInfoCache::get() {
    start();
    return m_future.result();
}

void DeviceInfoCache::whenReady(QObject* context, std::function<void(const DeviceInfo&)> apply) {
    // Both this and ready() run on this object's thread, so the answer cannot slip in between.
    Q_ASSERT(QThread::currentThread() == thread());
    start();
    if (m_announced)
        apply(m_future.result());
    else
        connect(this, &DeviceInfoCache::ready, context, std::move(apply), Qt::SingleShotConnection);
}

bool gpuAvailable(QString* reason) {
    const DeviceInfo device = DeviceInfoCache::shared().get();
    if (reason) *reason = device.present ? QString() : QString::fromStdString(device.reason);
    return device.present;
}

} // namespace spyglass::app
