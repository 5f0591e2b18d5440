#pragma once
class QTabWidget;

namespace spyglass::widgets {
class MainContext;
}

namespace spyglass::gui {

// Adds one tab per method panel after the "Structure" tab. The only place that knows the panels.
void addMethodPanels(QTabWidget* tabs, widgets::MainContext& context);

} // namespace spyglass::gui
