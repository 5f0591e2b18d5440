#include "statspanel.h"

#include <QFormLayout>
#include <QLabel>
#include <QLocale>

namespace spyglass::widgets {

namespace {
QString count(qint64 n) { return QLocale::system().toString(n); }

QString percent(double density) {
    // Sparse matrices live in the 1e-3 .. 1e-7 range where a fixed "0.00 %" would hide everything.
    if (density <= 0) return QStringLiteral("0");
    if (density >= 0.01) return QStringLiteral("%1 %").arg(density * 100, 0, 'f', 2);
    return QStringLiteral("%1 %").arg(density * 100, 0, 'g', 3);
}
} // namespace

StatsPanel::StatsPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QFormLayout(this);
    layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    layout->setLabelAlignment(Qt::AlignRight);
    addRow(QStringLiteral("file"), tr("File"));
    addRow(QStringLiteral("rows"), tr("Rows"));
    addRow(QStringLiteral("cols"), tr("Columns"));
    addRow(QStringLiteral("stored"), tr("Stored entries"));
    addRow(QStringLiteral("nnz"), tr("Entries (expanded)"));
    addRow(QStringLiteral("field"), tr("Field"));
    addRow(QStringLiteral("symmetry"), tr("Symmetry"));
    addRow(QStringLiteral("density"), tr("Density"));
    addRow(QStringLiteral("bandwidth"), tr("Bandwidth"));
    addRow(QStringLiteral("lowerUpper"), tr("Lower / upper"));
    addRow(QStringLiteral("diagonals"), tr("Distinct diagonals"));
    addRow(QStringLiteral("emptyRows"), tr("Empty rows"));
    addRow(QStringLiteral("emptyCols"), tr("Empty columns"));
    addRow(QStringLiteral("binary"), tr("Binary"));
    addRow(QStringLiteral("maxRowEntries"), tr("Max entries per row"));
    addRow(QStringLiteral("nonFinite"), tr("Non-finite values"));
    clear();
}

void StatsPanel::addRow(const QString& key, const QString& label) {
    auto* value = new QLabel(this);
    value->setObjectName(QStringLiteral("stat_") + key);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    static_cast<QFormLayout*>(layout())->addRow(label + QLatin1Char(':'), value);
    m_values.insert(key, value);
    m_order.append(key);
}

void StatsPanel::setValue(const QString& key, const QString& text) { m_values.value(key)->setText(text); }

QString StatsPanel::valueText(const QString& key) const {
    const QLabel* label = m_values.value(key);
    return label ? label->text() : QString();
}

void StatsPanel::clear() {
    for (QLabel* label : std::as_const(m_values)) label->setText(QStringLiteral("\u2014"));
}

void StatsPanel::setStats(const spyglass::MatrixStats& s, const QString& fileName) {
    setValue(QStringLiteral("file"), fileName.isEmpty() ? QStringLiteral("\u2014") : fileName);
    setValue(QStringLiteral("rows"), count(s.rows));
    setValue(QStringLiteral("cols"), count(s.cols));
    // Every figure below the stored count is of one entry per position, as the formats see it.
    QString stored = count(s.stored);
    if (s.distinct.duplicatesSummed > 0)
        stored += tr(" (%1 duplicates summed, counted once)").arg(count(s.distinct.duplicatesSummed));
    if (s.distinct.arrayZerosDropped > 0)
        stored += tr(" (%1 zeros of the dense array not counted)").arg(count(s.distinct.arrayZerosDropped));
    setValue(QStringLiteral("stored"), stored);
    setValue(QStringLiteral("nnz"), count(s.nnz));
    setValue(QStringLiteral("field"), QString::fromLatin1(toString(s.field)));
    setValue(QStringLiteral("symmetry"), QString::fromLatin1(toString(s.symmetry)));
    setValue(QStringLiteral("density"), percent(s.density));
    setValue(QStringLiteral("bandwidth"), count(s.bandwidth));
    setValue(QStringLiteral("lowerUpper"), QStringLiteral("%1 / %2").arg(count(s.lowerBandwidth), count(s.upperBandwidth)));
    setValue(QStringLiteral("diagonals"), count(s.diagonals));
    setValue(QStringLiteral("emptyRows"), count(s.emptyRows));
    setValue(QStringLiteral("emptyCols"), count(s.emptyCols));
    setValue(QStringLiteral("binary"), s.binary ? tr("yes") : tr("no"));
    setValue(QStringLiteral("maxRowEntries"), count(s.maxRowEntries));
    setValue(QStringLiteral("nonFinite"), s.hasNonFinite ? tr("yes (NaN or Inf present)") : tr("none"));
}

} // namespace spyglass::widgets
