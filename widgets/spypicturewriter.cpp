#include "spypicturewriter.h"

#include "spyview.h"

#include <QBuffer>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QLocale>
#include <QSaveFile>

namespace spyglass::widgets {

namespace {
QString esc(const QString& text) { return text.toHtmlEscaped(); }
QString num(double v) { return QString::number(v, 'f', 1); }
QString grouped(qint64 n) { return QLocale(QLocale::English).toString(n); }

bool writeAtomically(const QString& path, const QByteArray& bytes, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error) *error = QStringLiteral("Could not write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}
} // namespace

QByteArray spyPictureSvg(const SpyView& view) {
    const QRectF plot = view.viewport().plotRect();
    const QRectF matrix = view.viewport().matrixRectInWidget().intersected(plot);
    const QFontMetricsF fm(view.font());
    const QString family = esc(view.font().family());
    const double fontPx = fm.ascent() + fm.descent();
    QString svg;
    svg += QStringLiteral("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                          "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
                          "width=\"%1\" height=\"%2\" viewBox=\"0 0 %1 %2\" font-family=\"%3\" font-size=\"%4px\">\n")
               .arg(view.width())
               .arg(view.height())
               .arg(family, num(fontPx * 0.8));
    svg += QStringLiteral("<title>%1</title>\n").arg(esc(view.document().fileName()));
    svg += QStringLiteral("<rect width=\"100%\" height=\"100%\" fill=\"#eceef1\"/>\n");
    // The plot area as the view paints it (the matrix, the panel's drawing), one image.
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    view.renderPlotArea().save(&buffer, "PNG");
    svg += QStringLiteral("<image id=\"plot\" x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" image-rendering=\"pixelated\" "
                          "xlink:href=\"data:image/png;base64,%5\"/>\n")
               .arg(num(plot.left()), num(plot.top()), num(plot.width()), num(plot.height()), QString::fromLatin1(png.toBase64()));
    // Axes: column numbers above, row numbers left, 1-based.
    svg += QStringLiteral("<g id=\"column-axis\" stroke=\"#3c4046\" fill=\"#3c4046\">\n");
    for (const AxisTick& tick : view.ticks(true)) {
        svg += QStringLiteral("<line x1=\"%1\" y1=\"%2\" x2=\"%1\" y2=\"%3\"/>")
                   .arg(num(tick.pixel), num(matrix.top() - SpyView::kTickLength), num(matrix.top()));
        svg += QStringLiteral("<text class=\"column-tick\" x=\"%1\" y=\"%2\" text-anchor=\"middle\" stroke=\"none\">%3</text>\n")
                   .arg(num(tick.pixel), num(matrix.top() - SpyView::kTickLength - 3), grouped(tick.value));
    }
    svg += QStringLiteral("</g>\n<g id=\"row-axis\" stroke=\"#3c4046\" fill=\"#3c4046\">\n");
    for (const AxisTick& tick : view.ticks(false)) {
        svg += QStringLiteral("<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%2\"/>")
                   .arg(num(matrix.left() - SpyView::kTickLength), num(tick.pixel), num(matrix.left()));
        svg += QStringLiteral("<text class=\"row-tick\" x=\"%1\" y=\"%2\" text-anchor=\"end\" dominant-baseline=\"middle\" stroke=\"none\">%3</text>\n")
                   .arg(num(matrix.left() - SpyView::kTickLength - 3), num(tick.pixel), grouped(tick.value));
    }
    svg += QStringLiteral("</g>\n");
    svg += QStringLiteral("<text id=\"nonzeros\" x=\"%1\" y=\"%2\" fill=\"#3c4046\" dominant-baseline=\"middle\">%3</text>\n")
               .arg(num(matrix.left()), num(view.legendRect().center().y()), esc(view.nonzerosText()));
    // The density legend: the renderer's colour ramp (densitypicture.cpp), sparse to dense.
    const QRectF legend = view.legendRect();
    const double sw = fm.horizontalAdvance(SpyView::tr("sparse")), dw = fm.horizontalAdvance(SpyView::tr("dense"));
    svg += QStringLiteral("<defs><linearGradient id=\"density\"><stop offset=\"0\" stop-color=\"#9ecae1\"/>"
                          "<stop offset=\"1\" stop-color=\"#08306b\"/></linearGradient></defs>\n");
    svg += QStringLiteral("<g id=\"legend\" fill=\"#3c4046\"><text x=\"%1\" y=\"%2\" dominant-baseline=\"middle\">%3</text>"
                          "<rect x=\"%4\" y=\"%5\" width=\"%6\" height=\"%7\" fill=\"url(#density)\" stroke=\"#787e86\"/>"
                          "<text x=\"%8\" y=\"%2\" text-anchor=\"end\" dominant-baseline=\"middle\">%9</text></g>\n")
               .arg(num(legend.left()), num(legend.center().y()), esc(SpyView::tr("sparse")), num(legend.left() + sw + 6),
                    num(legend.top() + 2), num(legend.width() - sw - dw - 12), num(legend.height() - 4), num(legend.right()),
                    esc(SpyView::tr("dense")));
    // The overlays' labels where the view places them, with their leader lines.
    svg += QStringLiteral("<g id=\"labels\">\n");
    const QList<SpyOverlay> overlays = view.overlays();
    for (const PlacedLabel& label : view.labelPlacements()) {
        const SpyOverlay& overlay = overlays[label.overlay];
        const QString ink = overlay.color.darker(200).name(), edge = overlay.color.name();
        const QRectF r = label.rect;
        if (!label.inside) {
            const QPointF from(std::clamp(label.anchor.x(), r.left(), r.right()), std::clamp(label.anchor.y(), r.top(), r.bottom()));
            svg += QStringLiteral("<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%4\" stroke=\"%5\"/>")
                       .arg(num(from.x()), num(from.y()), num(label.anchor.x()), num(label.anchor.y()), ink);
        }
        svg += QStringLiteral("<rect class=\"label\" x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" rx=\"2\" fill=\"#ffffff\" "
                              "fill-opacity=\"0.88\" stroke=\"%5\"/>")
                   .arg(num(r.left()), num(r.top()), num(r.width()), num(r.height()), edge);
        svg += QStringLiteral("<text x=\"%1\" y=\"%2\" text-anchor=\"middle\" dominant-baseline=\"middle\" fill=\"%3\">%4</text>\n")
                   .arg(num(r.center().x()), num(r.center().y()), ink, esc(overlay.label));
    }
    svg += QStringLiteral("</g>\n</svg>\n");
    return svg.toUtf8();
}

bool writeSpyPicture(const SpyView& view, const QString& path, QString* error) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("svg")) return writeAtomically(path, spyPictureSvg(view), error);
    if (suffix != QLatin1String("png")) {
        if (error) *error = QStringLiteral("%1: the picture is saved as .png or .svg").arg(path);
        return false;
    }
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    if (!view.renderWidget().save(&buffer, "PNG")) {
        if (error) *error = QStringLiteral("Could not encode the picture as PNG");
        return false;
    }
    return writeAtomically(path, png, error);
}

} // namespace spyglass::widgets
