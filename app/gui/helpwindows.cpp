#include "helpwindows.h"

#include <QAction>
#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace spyglass::gui {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("HelpWindows", text); }

QString plain(QString text) { return text.remove(QLatin1Char('&')); }

void collect(const QMenu* menu, const QString& path, QStringList& rows) {
    for (const QAction* action : menu->actions()) {
        if (action->menu()) {
            collect(action->menu(), path + QStringLiteral(" \u2192 ") + plain(action->menu()->title()), rows);
            continue;
        }
        if (action->isSeparator() || action->shortcut().isEmpty()) continue;
        rows << QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                    .arg(action->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(),
                         (path + QStringLiteral(" \u2192 ") + plain(action->text())).toHtmlEscaped());
    }
}

QDialog* helpDialog(QMainWindow* window, const QString& objectName, const QString& title, QSize size) {
    // One of each: a second request raises the open one.
    if (auto* open = window->findChild<QDialog*>(objectName)) {
        open->raise();
        open->activateWindow();
        return open;
    }
    auto* dialog = new QDialog(window);
    dialog->setObjectName(objectName);
    dialog->setWindowTitle(title);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setModal(false);
    auto* layout = new QVBoxLayout(dialog);
    auto* browser = new QTextBrowser;
    browser->setObjectName(QStringLiteral("helpText"));
    browser->setOpenExternalLinks(true);
    layout->addWidget(browser);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(buttons);
    // Within the main window's screen, whatever its size.
    dialog->resize(size.boundedTo(window->size() * 0.95));
    return dialog;
}
} // namespace

QString userGuideMarkdown() {
    QFile file(QStringLiteral(":/docs/gui.md"));
    if (!file.open(QIODevice::ReadOnly)) return tr("# User guide\n\nThe guide (docs/gui.md) is not built into this program.");
    QString text = QString::fromUtf8(file.readAll());
    // Screenshot lines (possibly wrapped over two lines) name files that are not built in.
    text.remove(QRegularExpression(QStringLiteral("!\\[[^\\]]*\\]\\([^)]*\\)\\n?")));
    return text;
}

QString keyboardShortcutsHtml(const QMainWindow& window) {
    QStringList rows;
    for (const QAction* action : window.menuBar()->actions())
        if (action->menu()) collect(action->menu(), plain(action->menu()->title()), rows);
    const QList<QPair<QString, QString>> picture = {
        {tr("Mouse wheel"), tr("Zoom about the pointer")},
        {tr("+ / -"), tr("Zoom in / out about the centre (picture focused)")},
        {tr("F, double-click"), tr("Fit the whole matrix")},
        {tr("Drag with the left button"), tr("Pan")},
        {tr("Hover"), tr("Row, column and value in the status bar; a drawn shape's details as a tooltip")},
        {tr("Right-click"), tr("Fit, Save Picture as PNG or SVG")},
    };
    QString html = QStringLiteral("<h3>%1</h3><table cellpadding=\"3\">%2</table><h3>%3</h3><table cellpadding=\"3\">")
                       .arg(tr("Menus"), rows.join(QString()), tr("The picture"));
    for (const auto& [keys, what] : picture)
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(keys.toHtmlEscaped(), what.toHtmlEscaped());
    html += QStringLiteral("</table>");
    return html;
}

QWidget* showUserGuide(QMainWindow* window) {
    QDialog* dialog = helpDialog(window, QStringLiteral("userGuide"), tr("Spyglass User Guide"), QSize(900, 800));
    auto* browser = dialog->findChild<QTextBrowser*>(QStringLiteral("helpText"));
    if (browser->toPlainText().isEmpty()) browser->setMarkdown(userGuideMarkdown());
    dialog->show();
    return dialog;
}

QWidget* showKeyboardShortcuts(QMainWindow* window) {
    QDialog* dialog = helpDialog(window, QStringLiteral("keyboardShortcuts"), tr("Keyboard Shortcuts"), QSize(560, 520));
    dialog->findChild<QTextBrowser*>(QStringLiteral("helpText"))->setHtml(keyboardShortcutsHtml(*window));
    dialog->show();
    return dialog;
}

} // namespace spyglass::gui
