#pragma once
// Opening a matrix by dropping its file on a window: a drag is accepted while it carries a local file
// whose name the application opens, and a drop hands the first such file on (one document at a
// time). An event filter, so that the main window only says what opening a file does.
#include <QObject>
#include <QString>

#include <functional>

class QMimeData;
class QWidget;

namespace spyglass::gui {

// Whether the application opens a file of this name (Matrix Market, its container, NumPy, MATLAB,
// Harwell-Boeing).
bool isMatrixFile(const QString& path);

// The first local matrix file among the dragged URLs; empty when there is none.
QString droppedMatrixFile(const QMimeData* data);

class MatrixFileDrops : public QObject {
public:
    // Makes `window` accept drops and calls `open` with each matrix file dropped on it; owned by it.
    MatrixFileDrops(QWidget* window, std::function<void(const QString&)> open);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    std::function<void(const QString&)> m_open;
};

} // namespace spyglass::gui
