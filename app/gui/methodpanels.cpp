#include "methodpanels.h"

#include "batchedsvdpanel.h"
#include "batchinversepanel.h"
#include "bitflagpanel.h"
#include "hybridpanel.h"
#include "maincontext.h"
#include "segdiapanel.h"

#include <QTabWidget>

namespace spyglass::gui {

void addMethodPanels(QTabWidget* tabs, widgets::MainContext& context) {
    // One block per method. A panel that follows the open matrix connects to
    // context.documentChanged; one that marks regions on the picture uses
    // context.setOverlays(this, ...) / setRowBands(this, ...) (shown while its tab is in front) and
    // highlights the row selected in its table with context.highlightOverlay / highlightRowBand;
    // menu actions go to context.toolsMenu().
    tabs->addTab(new widgets::BitFlagPanel(context, tabs), QObject::tr("Bit-flag (A)"));
    tabs->addTab(new widgets::SegmentedDiaPanel(context, tabs), QObject::tr("Segmented DIA (B)"));
    tabs->addTab(new widgets::HybridPanel(context, tabs), QObject::tr("Dense regions (D)"));
    tabs->addTab(new widgets::BatchedSvdPanel(tabs), QObject::tr("Batched SVD (C)"));
    tabs->addTab(new widgets::BatchInversePanel(tabs), QObject::tr("Batched inverse (E)"));
}

} // namespace spyglass::gui
