#include "matvariabledialog.h"

#include <QDialogButtonBox>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace spyglass::widgets {

MatVariableDialog::MatVariableDialog(const QString& file, const QStringList& names, const QStringList& descriptions, QWidget* parent)
    : QDialog(parent), m_list(new QListWidget(this)) {
    setWindowTitle(tr("Choose a Matrix"));
    auto* label = new QLabel(tr("%1 holds %n matrices. Open which one?", nullptr, int(names.size())).arg(QFileInfo(file).fileName()), this);
    label->setWordWrap(true);
    for (int i = 0; i < names.size(); ++i) {
        auto* item = new QListWidgetItem(QStringLiteral("%1  (%2)").arg(names[i], descriptions.value(i)), m_list);
        item->setData(Qt::UserRole, names[i]);
    }
    m_list->setCurrentRow(0);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QListWidget::itemDoubleClicked, this, &QDialog::accept);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(label);
    layout->addWidget(m_list);
    layout->addWidget(buttons);
}

QString MatVariableDialog::chosenName() const {
    const QListWidgetItem* item = m_list->currentItem();
    return item ? item->data(Qt::UserRole).toString() : QString();
}

} // namespace spyglass::widgets
