#include "methodpanels.h"

#include "batchedsvdpanel.h"
#include "batchedinversepanel.h"
#include "bitflagpanel.h"
#include "formatcomparisonpanel.h"
#include "hybridpanel.h"
#include "maincontext.h"
#include "scalepanel.h"
#include "segdiapanel.h"

#include <QTabWidget>

namespace spyglass::gui {

void addMethodPanels(QTabWidget* tabs, widgets::MainContext& context) {
    // One block per method. A panel that follows the open matrix connects to
    // context.documentChanged; one that marks regions on the picture uses
    // context.setOverlays(this, ...) / setRowBands(this, ...) (shown while its tab is in front) and
    // highlights the row selected in its table with context.highlightOverlay / highlightRowBand;
    // menu actions go to context.toolsMenu().
    auto* bitFlag = new widgets::BitFlagPanel(context, tabs);
    auto* segmentedDia = new widgets::SegmentedDiaPanel(context, tabs);
    auto* hybrid = new widgets::HybridPanel(context, tabs);
    tabs->addTab(bitFlag, QObject::tr("Bit-flag (A)"));
    tabs->addTab(segmentedDia, QObject::tr("Segmented DIA (B)"));
    tabs->addTab(hybrid, QObject::tr("Dense regions (D)"));
    tabs->addTab(new widgets::BatchedSvdPanel(tabs), QObject::tr("Batched SVD (C)"));
    tabs->addTab(new widgets::BatchedInversePanel(tabs), QObject::tr("Batched inverse (E)"));

    // Every SpMV format on the open matrix; a double-clicked row opens the tab that shows its layout
    // (the DIA kinds all live in the segmented-DIA tab; CSR is the matrix itself: the picture and the
    // first tab, its statistics).
    auto* compare = new widgets::FormatComparisonPanel(context, tabs);
    tabs->addTab(compare, QObject::tr("Compare formats"));
    // How the rows would split over GPUs, and what spyglass-cli power measured (docs/scale.md).
    tabs->addTab(new widgets::ScalePanel(context, tabs), QObject::tr("Scale (GPUs)"));
    QWidget* structure = tabs->widget(0);
    QObject::connect(compare, &widgets::FormatComparisonPanel::openFormatRequested, tabs,
                     [tabs, structure, bitFlag, segmentedDia, hybrid](SpmvFormat format) {
                         switch (format) {
                         case SpmvFormat::Csr: tabs->setCurrentWidget(structure); break;
                         case SpmvFormat::BitFlag: tabs->setCurrentWidget(bitFlag); break;
                         case SpmvFormat::HybridBinary:
                         case SpmvFormat::HybridValued: tabs->setCurrentWidget(hybrid); break;
                         default: tabs->setCurrentWidget(segmentedDia); break;
                         }
                     });
}

} // namespace spyglass::gui
