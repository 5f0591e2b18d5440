#pragma once
// File -> Open Recent: the persisted list, most recent first, with a Clear entry.
#include <QMenu>
#include <QStringList>

namespace spyglass::widgets {

class RecentFilesMenu : public QMenu {
    Q_OBJECT
public:
    explicit RecentFilesMenu(QWidget* parent = nullptr);
    void setFiles(const QStringList& files);

signals:
    void fileChosen(const QString& path);
    void clearRequested();
};

} // namespace spyglass::widgets
