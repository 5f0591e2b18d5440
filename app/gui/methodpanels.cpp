#include "methodpanels.h"

#include "batchedsvdpanel.h"
#include "batchedinversepanel.h"
#include "bitflagpanel.h"
#include "formatcomparisonpanel.h"
#include "hybridpanel.h"
#include "maincontext.h"
#include "pagescrollarea.h"
#include "scalepanel.h"
#include "segdiapanel.h"

#include <QScrollArea>
#include <QTabWidget>

namespace spyglass::gui {

void addPanelTab(QTabWidget* tabs, QWidget* panel, const QString& title) {
    tabs->addTab(new widgets::PageScrollArea(panel), title);
}

QWidget* panelOfPage(QWidget* page) {
    if (auto* scroll = qobject_cast<QScrollArea*>(page)) return scroll->widget();
    return page;
}

void showPanel(QTabWidget* tabs, QWidget* panel) {
    for (int i = 0; i < tabs->count(); ++i)
        if (panelOfPage(tabs->widget(i)) == panel) tabs->setCurrentIndex(i);
}

void addMethodPanels(QTabWidget* tabs, widgets::MainContext& context) {
    // One block per method. A panel that follows the open matrix connects to
    // context.documentChanged; one that marks regions on the picture uses
    // context.setOverlays(this, ...) / setRowBands(this, ...) (shown while its tab is in front) and
    // highlights the row selected in its table with context.highlightOverlay / highlightRowBand;
    // menu actions go to context.toolsMenu().
    auto* bitFlag = new widgets::BitFlagPanel(context, tabs);
    auto* segmentedDia = new widgets::SegmentedDiaPanel(context, tabs);
    auto* hybrid = new widgets::HybridPanel(context, tabs);
    addPanelTab(tabs, bitFlag, QObject::tr("Bit-flag (A)"));
    addPanelTab(tabs, segmentedDia, QObject::tr("Segmented DIA (B)"));
    addPanelTab(tabs, hybrid, QObject::tr("Dense regions (D)"));
    auto* svd = new widgets::BatchedSvdPanel(tabs);
    auto* inverse = new widgets::BatchedInversePanel(tabs);
    for (QWidget* batched : {static_cast<QWidget*>(svd), static_cast<QWidget*>(inverse)})
        batched->setProperty(kMakesItsOwnMatrices, true);
    addPanelTab(tabs, svd, QObject::tr("Batched SVD (C)"));
    addPanelTab(tabs, inverse, QObject::tr("Batched inverse (E)"));

    // Every SpMV format on the open matrix; a double-clicked row opens the tab that shows its layout
    // (the DIA kinds all live in the segmented-DIA tab; CSR is the matrix itself: the picture and the
    // first tab, its statistics).
    auto* compare = new widgets::FormatComparisonPanel(context, tabs);
    addPanelTab(tabs, compare, QObject::tr("Compare formats"));
    // How the rows would split over GPUs, and what spyglass-cli power measured (docs/scale.md).
    addPanelTab(tabs, new widgets::ScalePanel(context, tabs), QObject::tr("Scale (GPUs)"));
    QObject::connect(compare, &widgets::FormatComparisonPanel::openFormatRequested, tabs,
                     [tabs, bitFlag, segmentedDia, hybrid](SpmvFormat format) {
                         switch (format) {
                         case SpmvFormat::Csr: tabs->setCurrentIndex(0); break;  // the statistics
                         case SpmvFormat::BitFlag: showPanel(tabs, bitFlag); break;
                         case SpmvFormat::HybridBinary:
                         case SpmvFormat::HybridValued: showPanel(tabs, hybrid); break;
                         default: showPanel(tabs, segmentedDia); break;
                         }
                     });
}

} // namespace spyglass::gui
