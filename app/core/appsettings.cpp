#include "appsettings.h"

#include <QDir>
#include <QFileInfo>

namespace spyglass::app {

namespace {
const QString recentKey = QStringLiteral("files/recent");
const QString lastDirectoryKey = QStringLiteral("files/lastDirectory");
const QString geometryKey = QStringLiteral("window/geometry");
const QString stateKey = QStringLiteral("window/state");

// The same file reached by two spellings must not take two places in the list.
QString canonical(const QString& path) { return QDir::cleanPath(QFileInfo(path).absoluteFilePath()); }
} // namespace

QStringList AppSettings::recentFiles() const {
    QStringList files = m_settings.value(recentKey).toStringList();
    files.removeAll(QString());
    files.removeDuplicates();
    while (files.size() > maxRecentFiles) files.removeLast();
    return files;
}

void AppSettings::addRecentFile(const QString& path) {
    const QString file = canonical(path);
    QStringList files = recentFiles();
    files.removeAll(file);
    files.prepend(file);
    while (files.size() > maxRecentFiles) files.removeLast();
    m_settings.setValue(recentKey, files);
}

void AppSettings::removeRecentFile(const QString& path) {
    QStringList files = recentFiles();
    files.removeAll(canonical(path));
    m_settings.setValue(recentKey, files);
}

void AppSettings::clearRecentFiles() { m_settings.remove(recentKey); }

QString AppSettings::lastDirectory() const { return m_settings.value(lastDirectoryKey).toString(); }
void AppSettings::setLastDirectory(const QString& directory) { m_settings.setValue(lastDirectoryKey, directory); }

QByteArray AppSettings::windowGeometry() const { return m_settings.value(geometryKey).toByteArray(); }
void AppSettings::setWindowGeometry(const QByteArray& geometry) { m_settings.setValue(geometryKey, geometry); }
QByteArray AppSettings::windowState() const { return m_settings.value(stateKey).toByteArray(); }
void AppSettings::setWindowState(const QByteArray& state) { m_settings.setValue(stateKey, state); }
// A key of its own: the picture was above the tabs before it was beside them, and a split saved then
// must not be restored onto the new orientation.
QByteArray AppSettings::splitterState() const { return m_settings.value(QStringLiteral("window/pictureBesideTabs")).toByteArray(); }
void AppSettings::setSplitterState(const QByteArray& state) { m_settings.setValue(QStringLiteral("window/pictureBesideTabs"), state); }

} // namespace spyglass::app
