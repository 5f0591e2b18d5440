#include "methodpanels.h"

#include "maincontext.h"

#include <QTabWidget>

namespace spyglass::gui {

void addMethodPanels(QTabWidget* tabs, widgets::MainContext& context) {
    // Each method's panel is added here, one block per method, e.g.
    //   tabs->addTab(new widgets::SomeMethodPanel(context, tabs), QObject::tr("Method"));
    // A panel that follows the open matrix connects to context.documentChanged; one that marks
    // regions on the picture uses context.spyView()->setOverlays() / setRowBands(); menu actions go
    // to context.toolsMenu().
    Q_UNUSED(tabs);
    Q_UNUSED(context);
}

} // namespace spyglass::gui
