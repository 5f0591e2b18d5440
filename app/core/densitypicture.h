#pragma once
// A rendered spy picture: which part of the matrix it shows and the pixels. A plain value that
// travels from the render thread to the spy view.
#include "spyglass/densityimage.h"

#include <QImage>
#include <QMetaType>

namespace spyglass::app {

struct DensityPicture {
    quint64 requestId = 0;
    MatrixWindow window;  // the matrix cells the image covers (half-open, 0-based)
    QImage image;         // one pixel per bin
    quint32 maxCount = 0;
};

// White for empty bins, then light to dark blue on a log scale of the bin's density relative to
// the densest bin, so that a single entry among millions of cells still shows.
QImage densityToImage(const DensityImage& density);

} // namespace spyglass::app

Q_DECLARE_METATYPE(spyglass::app::DensityPicture)
