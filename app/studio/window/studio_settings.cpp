#include "app/studio/window/studio_settings.h"

#include <QSettings>

namespace doppler::studio {
namespace key {
constexpr char kGeometry[] = "geometry";
constexpr char kWindowState[] = "windowState";
constexpr char kRecentFiles[] = "recentFiles";
constexpr char kMethod[] = "method";
constexpr char kDevices[] = "devices";
constexpr char kLastGraph[] = "lastGraph";
constexpr char kDarkTheme[] = "darkTheme";
constexpr char kFirstRunDone[] = "firstRunDone";
}  // namespace key

QVariant StudioSettings::read(const char* name, const QVariant& fallback) const {
  if (fresh_) return fallback;
  return QSettings().value(QString::fromLatin1(name), fallback);
}

void StudioSettings::write(const char* name, const QVariant& value) {
  if (!fresh_) QSettings().setValue(QString::fromLatin1(name), value);
}

QByteArray StudioSettings::geometry() const {
  return read(key::kGeometry, {}).toByteArray();
}
void StudioSettings::setGeometry(const QByteArray& value) {
  write(key::kGeometry, value);
}
QByteArray StudioSettings::windowState() const {
  return read(key::kWindowState, {}).toByteArray();
}
void StudioSettings::setWindowState(const QByteArray& value) {
  write(key::kWindowState, value);
}
QStringList StudioSettings::recentFiles() const {
  return read(key::kRecentFiles, {}).toStringList();
}
void StudioSettings::setRecentFiles(const QStringList& value) {
  write(key::kRecentFiles, value);
}
QString StudioSettings::method() const {
  return read(key::kMethod, {}).toString();
}
void StudioSettings::setMethod(const QString& value) {
  write(key::kMethod, value);
}
QString StudioSettings::devices() const {
  return read(key::kDevices, {}).toString();
}
void StudioSettings::setDevices(const QString& value) {
  write(key::kDevices, value);
}
QString StudioSettings::lastGraph() const {
  return read(key::kLastGraph, {}).toString();
}
void StudioSettings::setLastGraph(const QString& value) {
  write(key::kLastGraph, value);
}
bool StudioSettings::darkTheme() const {
  return read(key::kDarkTheme, false).toBool();
}
void StudioSettings::setDarkTheme(bool value) {
  write(key::kDarkTheme, value);
}
bool StudioSettings::firstRunDone() const {
  return read(key::kFirstRunDone, false).toBool();
}
void StudioSettings::setFirstRunDone(bool value) {
  write(key::kFirstRunDone, value);
}

qint64 StudioSettings::onnxDim(const QString& name, qint64 fallback) const {
  if (fresh_) {
    const auto it = sessionDims_.find(name);
    return it == sessionDims_.end() ? fallback : it->second;
  }
  return QSettings()
      .value(
          QStringLiteral("onnxDims/") + QString(name).replace(QLatin1Char('/'), QLatin1Char('_')),
          fallback)
      .toLongLong();
}
void StudioSettings::setOnnxDim(const QString& name, qint64 value) {
  sessionDims_[name] = value;
  if (!fresh_)
    QSettings().setValue(
        QStringLiteral("onnxDims/") + QString(name).replace(QLatin1Char('/'), QLatin1Char('_')),
        value);
}

}  // namespace doppler::studio
