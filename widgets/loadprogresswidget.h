#pragma once
// Status-bar piece shown while a file loads: what is loading, how far, and a Cancel button.
#include <QWidget>

class QLabel;
class QProgressBar;
class QToolButton;

namespace spyglass::widgets {

class LoadProgressWidget : public QWidget {
    Q_OBJECT
public:
    explicit LoadProgressWidget(QWidget* parent = nullptr);

public slots:
    void start(const QString& path);
    void setProgress(double fraction);  // 0..1
    void stop();

signals:
    void cancelRequested();

private:
    QLabel* m_label;
    QProgressBar* m_bar;
    QToolButton* m_cancel;
};

} // namespace spyglass::widgets
