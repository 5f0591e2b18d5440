#pragma once
class QString;
class QTabWidget;
class QWidget;

namespace spyglass::widgets {
class MainContext;
}

namespace spyglass::gui {

// A panel whose property of this name is true makes its own matrices (the batched tabs): the main
// window hides the picture of the open matrix while it is in front.
inline constexpr char kMakesItsOwnMatrices[] = "makesItsOwnMatrices";

// Adds `panel` as a tab: its page is a scroll area holding it, so that a panel taller than the
// window scrolls below the tab bar (which stays in view) instead of pushing the window off the screen.
void addPanelTab(QTabWidget* tabs, QWidget* panel, const QString& title);
// The panel a tab's page holds (the page itself when it is not a scroll area); null for null.
QWidget* panelOfPage(QWidget* page);
// Brings the tab holding `panel` to the front.
void showPanel(QTabWidget* tabs, QWidget* panel);

// Adds one tab per method panel after the "Statistics" tab (the picture stays beside the tabs). The only place that knows the panels.
void addMethodPanels(QTabWidget* tabs, widgets::MainContext& context);

} // namespace spyglass::gui
