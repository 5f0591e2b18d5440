#pragma once
// The scroll area a tab's page is: it holds a panel taller than the window. Unlike QScrollArea it
// does not scroll to the widget the focus moves to when that move comes from disabling the focused
// widget: a Run button, disabled while its work runs, hands the focus on to the next widget in the
// tab order (often at the top of the panel), and the page must stay on the result being computed.
// Tab and Shift+Tab still bring the newly focused widget into view.
#include <QScrollArea>

namespace spyglass::widgets {

class PageScrollArea : public QScrollArea {
    Q_OBJECT
public:
    explicit PageScrollArea(QWidget* panel, QWidget* parent = nullptr);

protected:
    bool focusNextPrevChild(bool next) override;
};

} // namespace spyglass::widgets
