#include "recentfilesmenu.h"

#include <QDir>
#include <QFileInfo>

namespace spyglass::widgets {

RecentFilesMenu::RecentFilesMenu(QWidget* parent) : QMenu(tr("Open &Recent"), parent) { setFiles({}); }

void RecentFilesMenu::setFiles(const QStringList& files) {
    clear();
    for (int i = 0; i < files.size(); ++i) {
        const QString& path = files[i];
        // The number is a keyboard accelerator; the tooltip carries the full path.
        QAction* action = addAction(QStringLiteral("&%1  %2").arg((i + 1) % 10).arg(QFileInfo(path).fileName()));
        action->setToolTip(QDir::toNativeSeparators(path));
        action->setStatusTip(QDir::toNativeSeparators(path));
        connect(action, &QAction::triggered, this, [this, path] { emit fileChosen(path); });
    }
    if (files.isEmpty()) addAction(tr("(none)"))->setEnabled(false);
    addSeparator();
    QAction* clearAction = addAction(tr("&Clear list"));
    clearAction->setEnabled(!files.isEmpty());
    connect(clearAction, &QAction::triggered, this, &RecentFilesMenu::clearRequested);
}

} // namespace spyglass::widgets
