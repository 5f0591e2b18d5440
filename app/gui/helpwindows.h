#pragma once
// Help > User Guide (docs/gui.md, built into the program, rendered as rich text) and
// Help > Keyboard Shortcuts (every menu action with a shortcut, and the picture's own keys and mouse
// gestures), each a non-modal window over the main window.
#include <QString>

class QMainWindow;
class QWidget;

namespace spyglass::gui {

// The user guide's Markdown with the screenshot lines left out (the pictures are not built in).
QString userGuideMarkdown();
// The shortcut list as an HTML table, from the window's menus.
QString keyboardShortcutsHtml(const QMainWindow& window);

QWidget* showUserGuide(QMainWindow* window);
QWidget* showKeyboardShortcuts(QMainWindow* window);

} // namespace spyglass::gui
