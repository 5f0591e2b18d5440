#pragma once
// A method tab's empty state: one or two lines on what the method does, and, when the open matrix
// does not suit it, a button that opens the sample matrix that does (app/core/samples.h) through
// MainContext::requestOpen. Panels show it before their first run and hide it once they have a result.
#include <QWidget>

class QLabel;
class QPushButton;

namespace spyglass::widgets {

class MainContext;

class SampleHint : public QWidget {
    Q_OBJECT
public:
    SampleHint(MainContext& context, const QString& intro, QWidget* parent = nullptr);

    // Shows "reason" and a button "Open sample: <title>" for the sample with this id.
    void offer(const QString& sampleId, const QString& reason);
    // Only the intro: the open matrix suits the method.
    void clearOffer();
    QString offeredSample() const { return m_sampleId; }
    // Everything the hint says (intro, reason, button), for status checks and tests.
    QString text() const;
    QPushButton* button() const { return m_button; }

private:
    MainContext& m_context;
    QLabel* m_intro;
    QLabel* m_reason;
    QPushButton* m_button;
    QString m_sampleId;
};

} // namespace spyglass::widgets
