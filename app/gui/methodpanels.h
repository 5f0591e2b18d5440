#pragma once
class QTabWidget;

namespace spyglass::widgets {
class MainContext;
}

namespace spyglass::gui {

// Adds one tab per method panel after the "Statistics" tab (the picture stays beside the tabs). The only place that knows the panels.
void addMethodPanels(QTabWidget* tabs, widgets::MainContext& context);

} // namespace spyglass::gui
