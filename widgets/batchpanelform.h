#pragma once
// The form pieces the two batch panels (batched SVD, batched inverse) share: the batch size, the
// precision choice, the stacked-file row, the CPU-reference box and the run/cancel row, built the
// same way so that both panels look and behave alike.
#include <QString>

class QCheckBox;
class QComboBox;
class QHBoxLayout;
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

// "useCpu", checked: the CPU reference always runs.
QCheckBox* cpuReferenceBox();

// The run button (object name "run") and the cancel button, disabled until a run starts.
QHBoxLayout* runCancelRow(QPushButton* run, QPushButton* cancel);

} // namespace spyglass::widgets::batchform
