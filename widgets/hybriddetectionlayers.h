#pragma once
// The detector's view of a matrix as pictures for the spy view (method D, "detection made
// visible"): the thumbnail's density, the binary mask after the pixel threshold, and the labelled
// components (one colour each; dropped ones faded), each one image pixel per thumbnail pixel,
// placed over the matrix cells that pixel covers. Component boxes become overlays whose tooltip
// gives the verdict and why.
#include "spyoverlay.h"

#include "core/hybriddetectionjob.h"

#include <QImage>
#include <QList>
#include <QRectF>

#include <vector>

namespace spyglass::widgets {

enum class DetectionLayer { Regions, Density, Mask, Components };

QImage detectionDensityImage(const DetectionPicture& picture);
QImage detectionMaskImage(const DetectionPicture& picture);
QImage detectionComponentsImage(const DetectionPicture& picture);
// The matrix cells the picture covers (whole pixels: may reach past the matrix's last row/col).
QRectF detectionCells(const DetectionPicture& picture);
// A component's colour: distinct hues by label; dropped components are drawn faded.
QColor componentColor(const ComponentInfo& component);
// One rectangle overlay per component (its pixel box in matrix cells), verdict and reason as tooltip.
// The components as listed in the Detection table and drawn: kept first, then the others by
// decreasing pixels, at most maxComponents (the table's row i is overlay i).
std::vector<ComponentInfo> listedComponents(const DetectionPicture& picture, int maxComponents = 2000);
QList<SpyOverlay> componentOverlays(const DetectionPicture& picture, int maxComponents = 2000);
QString componentDetails(const ComponentInfo& component, Index cellsPerPixel);

} // namespace spyglass::widgets
