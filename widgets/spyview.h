#pragma once
// The sparsity ("spy") picture of the open matrix. It only paints what it is handed: it asks for
// pictures of the visible window through renderRequested() and shows what setPicture() delivers,
// scaling the previous picture meanwhile. Mouse: wheel zooms about the cursor, drag pans,
// double-click fits; keys F (fit), + and - (zoom about the centre).
#include "core/densitypicture.h"
#include "core/matrixdocument.h"
#include "spyoverlay.h"
#include "spyplotlayout.h"
#include "spyviewport.h"

#include <QImage>
#include <QList>
#include <QTimer>
#include <QWidget>

#include <optional>

namespace spyglass::widgets {

class SpyView : public QWidget {
    Q_OBJECT
public:
    explicit SpyView(QWidget* parent = nullptr);

    void setDocument(const spyglass::app::MatrixDocument& document);
    const spyglass::app::MatrixDocument& document() const { return m_document; }
    const SpyViewport& viewport() const { return m_viewport; }

    void setOverlays(const QList<SpyOverlay>& overlays);
    QList<SpyOverlay> overlays() const { return m_overlays; }
    void setRowBands(const QList<RowBand>& bands);
    QList<RowBand> rowBands() const { return m_rowBands; }
    // One overlay (or row band) drawn stronger, e.g. the one selected in a panel's table; -1: none.
    void setHighlightedOverlay(int index);
    int highlightedOverlay() const { return m_highlightedOverlay; }
    void setHighlightedRowBand(int index);
    // Row bands thinner than this many pixels on average are drawn as boundary lines only.
    static constexpr int kMinBandPixels = 4;
    // Whether the row bands on screen are drawn as outlines (too many to fill without hiding the matrix).
    bool rowBandsAsOutlines() const;
    int highlightedRowBand() const { return m_highlightedRowBand; }
    // A picture shown instead of the matrix's own (e.g. the detector's thumbnail), one image pixel
    // per block of matrix cells, stretched over `cells`; a null image shows the matrix again.
    void setBackdrop(const QImage& image, const QRectF& cells);
    QImage backdrop() const { return m_backdrop; }
    // Zooms and pans so that the cells fill about `fraction` of the view, centred.
    void bringIntoView(const QRectF& cells, double fraction = 0.6);
    // The hover tooltip at a widget point: the details of the topmost overlay covering the cell
    // there, else of the row band holding its row; empty when there is none.
    QString toolTipAt(const QPointF& widget) const;

    // Text for a 0-based cell, 1-based in the text as in the file: "row 3, col 5: 2.5".
    QString hoverText(int row, int col) const;
    QString currentHoverText() const { return m_hoverText; }
    std::optional<QPoint> hoveredCell() const { return m_hoverCell; }

    QSize sizeHint() const override { return {800, 700}; }

    // The spy plot's furniture: axis ticks (1-based), "nz = N", the density legend's box, and
    // where the overlays' labels go (never overlapping; see placeOverlayLabels).
    static constexpr int kTickLength = 4;
    QList<AxisTick> ticks(bool columns) const;
    QString nonzerosText() const;
    QRectF legendRect() const;
    QList<PlacedLabel> labelPlacements() const;
    // Saves the picture as shown (axes, legend, drawings) as PNG or SVG by the file name's
    // extension, atomically; false with the reason in `error` when it could not.
    bool savePicture(const QString& path, QString* error = nullptr) const;
    // The plot area alone (picture, bands, overlays, frame; no axes or labels), at the screen's resolution.
    QImage renderPlotArea() const;
    // The whole widget as painted.
    QImage renderWidget() const;
    // Asks for a file name and saves the picture there (the context menu's and File's action).
    void chooseAndSavePicture();

public slots:
    void setPicture(const spyglass::app::DensityPicture& picture);
    void fitToView();
    void zoomIn();
    void zoomOut();

signals:
    // The app connects this to a DensityRenderer and sends the result back to setPicture().
    void renderRequested(const spyglass::MatrixWindow& window, const QSize& pixels);
    // Empty when the pointer leaves the matrix.
    void hoveredCellChanged(const QString& text);
    // A rendered picture arrived and will be painted.
    void pictureShown();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool event(QEvent* event) override;

private:
    void viewChanged();
    void emitRenderRequest();
    void updateHover(const QPointF& position);
    void paintOverlays(QPainter& painter) const;
    void paintRowBands(QPainter& painter) const;
    void paintHoveredCell(QPainter& painter) const;
    void paintAxes(QPainter& painter) const;
    void paintContent(QPainter& painter) const;
    void paintOverlayLabels(QPainter& painter) const;
    void updateMargins();

    spyglass::app::MatrixDocument m_document;
    SpyViewport m_viewport;
    spyglass::app::DensityPicture m_picture;
    bool m_hasPicture = false;
    QList<SpyOverlay> m_overlays;
    QList<RowBand> m_rowBands;
    QImage m_backdrop;
    QRectF m_backdropCells;
    int m_highlightedOverlay = -1;
    int m_highlightedRowBand = -1;
    std::optional<QPoint> m_hoverCell;
    QString m_hoverText;
    std::optional<QPointF> m_dragFrom;
    QTimer m_renderDelay;  // coalesces the many view changes of one gesture into one request
};

} // namespace spyglass::widgets
