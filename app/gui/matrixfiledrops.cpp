// Dropping matrix files on a window (see matrixfiledrops.h).
#include "matrixfiledrops.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QRegularExpression>
#include <QUrl>
#include <QWidget>

#include <utility>

namespace spyglass::gui {

bool isMatrixFile(const QString& path) {
    return path.endsWith(QLatin1String(".mtx"), Qt::CaseInsensitive)
           || path.endsWith(QLatin1String(".mtx.gz"), Qt::CaseInsensitive)
           || path.endsWith(QLatin1String(".spy"), Qt::CaseInsensitive)   // an export reopens
           || path.endsWith(QLatin1String(".npz"), Qt::CaseInsensitive)   // scipy.sparse.save_npz
           || path.endsWith(QLatin1String(".npy"), Qt::CaseInsensitive)   // numpy.save, a dense 2-D array
           || path.endsWith(QLatin1String(".mat"), Qt::CaseInsensitive)   // MATLAB v5 / v7.3
           || QRegularExpression(QStringLiteral("\\.(rb|hb|[rcpi][suhzr]a)$"), QRegularExpression::CaseInsensitiveOption)
                  .match(path).hasMatch();  // Harwell-Boeing / Rutherford-Boeing
}

QString droppedMatrixFile(const QMimeData* data) {
    if (!data) return {};
    for (const QUrl& url : data->urls())
        if (url.isLocalFile() && isMatrixFile(url.toLocalFile())) return url.toLocalFile();
    return {};
}

MatrixFileDrops::MatrixFileDrops(QWidget* window, std::function<void(const QString&)> open)
    : QObject(window), m_open(std::move(open)) {
    window->setAcceptDrops(true);
    window->installEventFilter(this);
}

bool MatrixFileDrops::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::DragEnter) {
        auto* drag = static_cast<QDragEnterEvent*>(event);
        if (droppedMatrixFile(drag->mimeData()).isEmpty()) return false;
        drag->acceptProposedAction();
        return true;
    }
    if (event->type() == QEvent::Drop) {
        auto* drop = static_cast<QDropEvent*>(event);
        const QString file = droppedMatrixFile(drop->mimeData());
        if (file.isEmpty()) return false;
        m_open(file);  // one document at a time: the first matrix file wins
        drop->acceptProposedAction();
        return true;
    }
    return QObject::eventFilter(watched, event);
}

} // namespace spyglass::gui
