#pragma once
// The application's persistent choices over a QSettings the caller owns (the app passes
// QSettings("Spyglass", "Spyglass"), tests a temporary INI file): no global settings object.
#include <QByteArray>
#include <QSettings>
#include <QString>
#include <QStringList>

namespace spyglass::app {

class AppSettings {
public:
    static constexpr int maxRecentFiles = 10;

    explicit AppSettings(QSettings& settings) : m_settings(settings) {}

    // Most recent first, no duplicates, at most maxRecentFiles.
    QStringList recentFiles() const;
    void addRecentFile(const QString& path);
    void removeRecentFile(const QString& path);
    void clearRecentFiles();

    QString lastDirectory() const;
    void setLastDirectory(const QString& directory);

    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray& geometry);
    QByteArray windowState() const;
    void setWindowState(const QByteArray& state);
    // The split between the picture and the tabs (QSplitter::saveState).
    QByteArray splitterState() const;
    void setSplitterState(const QByteArray& state);

    void sync() { m_settings.sync(); }

private:
    QSettings& m_settings;
};

} // namespace spyglass::app
