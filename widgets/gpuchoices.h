#pragma once
// The GPU backend boxes of a panel and the note beside them, while the device query (on a worker
// thread) has not answered: unchecked, disabled, the note saying a GPU is being looked for. When it
// answers, each box is checked and enabled where there is a device, and `answered` adds the panel's
// own words (the note's text, tooltips).
#include "core/deviceinfocache.h"

#include <QList>

#include <functional>

class QCheckBox;
class QLabel;
class QWidget;

namespace spyglass::widgets {

// `note` is word-wrapped and says "Checking for a GPU…" until the answer. An answer already known
// comes at once, inside this call: the panel's members that `answered` reads must be set before.
void awaitDevice(QWidget* panel, const QList<QCheckBox*>& boxes, QLabel* note, std::function<void(const DeviceInfo&)> answered);

} // namespace spyglass::widgets
