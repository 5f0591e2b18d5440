#pragma once
// Steps the GUI suites take with the bit-flag tab: bring it to the front (which encodes the open
// matrix) and run one operation on the encoding, each waiting for the panel to show the result.
#include "bitflagpanel.h"
#include "guitesting.h"

#include <QSignalSpy>

namespace bitflagpaneltesting {

// The bit-flag tab made current, once it has shown the encoding of the open matrix; null when no tab
// holds the panel or the encoding took longer than timeoutMs.
inline spyglass::widgets::BitFlagPanel* showEncoded(spyglass::gui::MainWindow& window, int timeoutMs) {
    auto* panel = window.tabs()->findChild<spyglass::widgets::BitFlagPanel*>();
    if (!panel) return nullptr;
    QSignalSpy encoded(panel, &spyglass::widgets::BitFlagPanel::layoutShown);
    guitesting::findPanel<spyglass::widgets::BitFlagPanel>(window);  // showing the tab encodes the matrix
    return encoded.count() > 0 || encoded.wait(timeoutMs) ? panel : nullptr;
}

// Runs op on the panel's encoding; false when its result was not shown within timeoutMs.
inline bool runOperation(spyglass::widgets::BitFlagPanel& panel, spyglass::app::BitFlagOp op, int timeoutMs) {
    return guitesting::runAndWait(&panel, &spyglass::widgets::BitFlagPanel::operationShown, [&panel, op] {
        panel.setOperation(op);
        panel.runOperation();
    }, timeoutMs);
}

} // namespace bitflagpaneltesting
