// Shared form pieces of the batch panels (see batchpanelform.h).
#include "batchpanelform.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace spyglass::widgets::batchform {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("spyglass::widgets::batchform", text); }

} // namespace

QSpinBox* batchSpinBox(int value) {
    auto* batch = new QSpinBox;
    batch->setObjectName(QStringLiteral("batch"));
    batch->setRange(1, 100000000);
    batch->setValue(value);
    batch->setGroupSeparatorShown(true);
    return batch;
}

QComboBox* precisionComboBox(int f32, int f64, int c64, int c128) {
    auto* precision = new QComboBox;
    precision->setObjectName(QStringLiteral("precision"));
    precision->addItem(QStringLiteral("f32 (float)"), f32);
    precision->addItem(QStringLiteral("f64 (double)"), f64);
    precision->addItem(QStringLiteral("c64 (complex float)"), c64);
    precision->addItem(QStringLiteral("c128 (complex double)"), c128);
    return precision;
}

QHBoxLayout* stackedFileRow(QWidget* owner, QLineEdit* file, QPushButton* browse) {
    auto* row = new QHBoxLayout;
    row->addWidget(file, 1);
    row->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, owner, [owner, file] {
        const QString path = QFileDialog::getOpenFileName(owner, tr("Stacked matrices"), {}, tr("Matrix Market (*.mtx *.mtx.gz)"));
        if (!path.isEmpty()) file->setText(path);
    });
    return row;
}

QCheckBox* cpuReferenceBox() {
    auto* box = new QCheckBox(tr("CPU reference"));
    box->setObjectName(QStringLiteral("useCpu"));
    box->setChecked(true);
    return box;
}

QHBoxLayout* runCancelRow(QPushButton* run, QPushButton* cancel) {
    run->setObjectName(QStringLiteral("run"));
    cancel->setEnabled(false);
    auto* row = new QHBoxLayout;
    row->addWidget(run);
    row->addWidget(cancel);
    row->addStretch(1);
    return row;
}

} // namespace spyglass::widgets::batchform
