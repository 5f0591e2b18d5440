#include "densityrenderer.h"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <exception>

namespace spyglass::app {

DensityRenderer::DensityRenderer(QObject* parent) : QObject(parent) {
    qRegisterMetaType<spyglass::app::DensityPicture>();
}

DensityRenderer::~DensityRenderer() {
    m_pending.reset();
    m_future.waitForFinished();
}

void DensityRenderer::setDocument(const MatrixDocument& document) {
    m_matrix = document.matrix();
    m_pending.reset();
    ++m_latestId;  // whatever is still rendering belongs to the old document
}

void DensityRenderer::requestRender(const MatrixWindow& window, const QSize& pixels) {
    if (!m_matrix) return;
    Request request{++m_latestId, m_matrix, window,
                    QSize(std::max(pixels.width(), 1), std::max(pixels.height(), 1))};
    if (m_running)
        m_pending = std::move(request);  // replaces an older waiting request
    else
        start(std::move(request));
}

void DensityRenderer::start(Request request) {
    m_running = true;
    m_future = QtConcurrent::run([this, request] {
        DensityPicture picture;
        QString error;
        try {
            const DensityImage density =
                renderDensity(*request.matrix, request.window, request.pixels.width(), request.pixels.height());
            picture.requestId = request.id;
            picture.window = request.window;
            picture.image = densityToImage(density);
            picture.maxCount = density.maxCount;
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(this, [this, id = request.id, picture, error] { finished(id, picture, error); },
                                  Qt::QueuedConnection);
    });
}

void DensityRenderer::finished(quint64 id, const DensityPicture& picture, const QString& error) {
    m_running = false;
    if (m_pending) {
        Request next = std::move(*m_pending);
        m_pending.reset();
        start(std::move(next));
    }
    if (id != m_latestId) return;  // stale: a newer request exists
    if (!error.isEmpty())
        emit renderFailed(error);
    else
        emit renderFinished(picture);
}

} // namespace spyglass::app
