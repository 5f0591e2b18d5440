#pragma once
// Renders spy pictures off the GUI thread. Requests arrive faster than renders finish while the
// user zooms, so at most one render runs and only the newest waiting request is kept: the latest
// request wins and results of older ones are dropped, never shown late.
#include "densitypicture.h"
#include "matrixdocument.h"

#include <QFuture>
#include <QObject>
#include <QSize>

#include <memory>
#include <optional>

namespace spyglass::app {

class DensityRenderer : public QObject {
    Q_OBJECT
public:
    explicit DensityRenderer(QObject* parent = nullptr);
    ~DensityRenderer() override;  // waits for the running render

    quint64 latestRequestId() const { return m_latestId; }
    bool isBusy() const { return m_running; }

public slots:
    // Drops every pending request of the previous document.
    void setDocument(const spyglass::app::MatrixDocument& document);
    // window: matrix cells to show; pixels: bins across and down (each at least 1).
    void requestRender(const spyglass::MatrixWindow& window, const QSize& pixels);

signals:
    void renderFinished(const spyglass::app::DensityPicture& picture);
    void renderFailed(const QString& message);

private:
    struct Request {
        quint64 id = 0;
        std::shared_ptr<const Matrix> matrix;
        MatrixWindow window;
        QSize pixels;
    };
    void start(Request request);
    void finished(quint64 id, const DensityPicture& picture, const QString& error);

    std::shared_ptr<const Matrix> m_matrix;
    quint64 m_latestId = 0;
    bool m_running = false;
    std::optional<Request> m_pending;
    QFuture<void> m_future;
};

} // namespace spyglass::app
