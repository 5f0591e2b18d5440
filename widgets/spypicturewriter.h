#pragma once
// Saving the spy picture as it is shown: PNG (the widget's pixels: picture, axes, legend, labels) or
// SVG (the plot area as an embedded image, and the axes, ticks, "nz = N", legend and labels as
// vector text and lines, so they stay sharp and searchable). Written atomically (QSaveFile).
#include <QByteArray>
#include <QString>

namespace spyglass::widgets {

class SpyView;

// By the file name's extension (.png or .svg); false with the reason in `error` otherwise.
bool writeSpyPicture(const SpyView& view, const QString& path, QString* error = nullptr);
QByteArray spyPictureSvg(const SpyView& view);

} // namespace spyglass::widgets
