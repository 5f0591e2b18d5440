#include "pagescrollarea.h"

namespace spyglass::widgets {

PageScrollArea::PageScrollArea(QWidget* panel, QWidget* parent) : QScrollArea(parent) {
    setWidget(panel);
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
}

bool PageScrollArea::focusNextPrevChild(bool next) {
    // QWidget::setEnabled(false) on the focus widget moves the focus on after it is disabled: a
    // disabled focus widget means this move is not the user's Tab, so the view stays where it is.
    const QWidget* from = focusWidget();
    if (from && !from->isEnabled()) return QWidget::focusNextPrevChild(next);
    return QScrollArea::focusNextPrevChild(next);
}

} // namespace spyglass::widgets
