#pragma once
// The structural facts of the open matrix as a form: one row per MatrixStats field.
#include "core/matrixdocument.h"

#include <QMap>
#include <QString>
#include <QWidget>

class QLabel;

namespace spyglass::widgets {

class StatsPanel : public QWidget {
    Q_OBJECT
public:
    explicit StatsPanel(QWidget* parent = nullptr);

    void setStats(const spyglass::MatrixStats& stats, const QString& fileName = {});
    void clear();
    // The shown text of one field by key ("rows", "cols", "stored", "nnz", "field", "symmetry",
    // "density", "bandwidth", "lowerUpper", "diagonals", "emptyRows", "emptyCols", "binary", "maxRowEntries",
    // "nonFinite", "file"), for tests and copy-paste.
    QString valueText(const QString& key) const;
    QStringList keys() const { return m_order; }

private:
    void addRow(const QString& key, const QString& label);
    void setValue(const QString& key, const QString& text);

    QMap<QString, QLabel*> m_values;
    QStringList m_order;
};

} // namespace spyglass::widgets
