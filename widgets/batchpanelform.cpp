// Shared form pieces of the batch panels (see batchpanelform.h).
#include "batchpanelform.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

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

QFormLayout* fieldForm(std::initializer_list<std::pair<QString, QObject*>> rows) {
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);  // fields as wide as their content, not the panel
    for (const auto& [label, field] : rows) {
        if (auto* layout = qobject_cast<QLayout*>(field)) form->addRow(label, layout);
        else form->addRow(label, qobject_cast<QWidget*>(field));
    }
    return form;
}

QCheckBox* cpuReferenceBox() {
    auto* box = new QCheckBox(tr("CPU reference"));
    box->setObjectName(QStringLiteral("useCpu"));
    box->setChecked(true);
    return box;
}

QGroupBox* backendsBox(QCheckBox* cpu, QCheckBox* cuda, QComboBox* cudaChoice, std::initializer_list<QWidget*> below) {
    auto* box = new QGroupBox(tr("Run on"));
    auto* layout = new QVBoxLayout(box);
    layout->addWidget(cpu);
    auto* cudaRow = new QHBoxLayout;
    cudaRow->addWidget(cuda);
    cudaRow->addWidget(cudaChoice, 1);
    layout->addLayout(cudaRow);
    for (QWidget* widget : below) layout->addWidget(widget);
    return box;
}

void formBesideResults(QWidget* panel, QWidget* form, QWidget* results) {
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(form);
    split->addWidget(results);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
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
