#pragma once
// The small dialog that asks which matrix variable of a MATLAB .mat file to open, when the file holds
// several (app::MatrixLoader::variableChoiceNeeded). One line per variable: its name and what it is.
#include <QDialog>
#include <QStringList>

class QListWidget;

namespace spyglass::widgets {

class MatVariableDialog : public QDialog {
    Q_OBJECT
public:
    MatVariableDialog(const QString& file, const QStringList& names, const QStringList& descriptions, QWidget* parent = nullptr);

    // The chosen variable's name ("" when none is selected).
    QString chosenName() const;
    QListWidget* list() const { return m_list; }

private:
    QListWidget* m_list;
};

} // namespace spyglass::widgets
