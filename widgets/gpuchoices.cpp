#include "gpuchoices.h"

#include "core/deviceinfocache.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QLabel>
#include <QWidget>

namespace spyglass::widgets {

void awaitDevice(QWidget* panel, const QList<QCheckBox*>& boxes, QLabel* note, std::function<void(const DeviceInfo&)> answered) {
    note->setText(QCoreApplication::translate("spyglass::widgets::gpuchoices", "Checking for a GPU…"));
    note->setWordWrap(true);
    for (QCheckBox* gpu : boxes) {
        gpu->setChecked(false);
        gpu->setEnabled(false);
    }
    app::DeviceInfoCache::shared().whenReady(panel, [boxes, answered = std::move(answered)](const DeviceInfo& device) {
        for (QCheckBox* gpu : boxes) {
            gpu->setChecked(device.present);
            gpu->setEnabled(device.present);
        }
        answered(device);
    });
}

} // namespace spyglass::widgets
