#pragma once
// The form pieces the two batch panels (batched SVD, batched inverse) share: the batch size, the
// precision choice, the stacked-file row, the CPU-reference box and the run/cancel row, built the
// same way so that both panels look and behave alike.
#include <QString>

#include <initializer_list>
#include <utility>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QHBoxLayout;
class QLayout;
class QObject;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QWidget;

namespace spyglass::widgets::batchform {

// "batch": 1 to 10^8 matrices, thousands separated.
QSpinBox* batchSpinBox(int value);

// "precision": f32, f64, c64, c128 with the given codes as item data.
QComboBox* precisionComboBox(int f32, int f64, int c64, int c128);

// The file field and its Browse button in one row; Browse asks for a Matrix Market file of stacked
// matrices and puts its path in the field.
QHBoxLayout* stackedFileRow(QWidget* owner, QLineEdit* file, QPushButton* browse);

// The form of the batch's shape and input, one labelled row per field (a widget or a layout such
// as stackedFileRow's); the fields keep their own width rather than stretching across the panel.
QFormLayout* fieldForm(std::initializer_list<std::pair<QString, QObject*>> rows);

// "useCpu", checked: the CPU reference always runs.
QCheckBox* cpuReferenceBox();

// The "Run on" box: the CPU reference, the Spyglass CUDA box with its kernel choice beside it, then
// the vendor's boxes and any note, one a line.
QGroupBox* backendsBox(QCheckBox* cpu, QCheckBox* cuda, QComboBox* cudaChoice, std::initializer_list<QWidget*> below);

// Fills `panel` with the form column beside the results column, the split movable, no margins.
void formBesideResults(QWidget* panel, QWidget* form, QWidget* results);

// The run button (object name "run") and the cancel button, disabled until a run starts.
QHBoxLayout* runCancelRow(QPushButton* run, QPushButton* cancel);

} // namespace spyglass::widgets::batchform
