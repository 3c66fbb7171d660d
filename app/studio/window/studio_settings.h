#pragma once
// What the studio remembers between runs (QSettings), behind typed accessors so that no key
// string is written twice. A `fresh` instance (tests, grabs) reads defaults and writes nothing.
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <map>

namespace doppler::studio {

class StudioSettings {
 public:
  explicit StudioSettings(bool fresh) : fresh_(fresh) {}
  bool fresh() const { return fresh_; }

  QByteArray geometry() const;
  void setGeometry(const QByteArray& value);
  QByteArray windowState() const;  // docks and toolbars
  void setWindowState(const QByteArray& value);
  QStringList recentFiles() const;
  void setRecentFiles(const QStringList& value);
  QString method() const;
  void setMethod(const QString& value);
  QString devices() const;  // a device spec: preset, count or file
  void setDevices(const QString& value);
  QString lastGraph() const;  // a path, or empty for a generated graph
  void setLastGraph(const QString& value);
  bool darkTheme() const;
  void setDarkTheme(bool value);
  // Set after the first start: from then on the studio reopens the last graph, not the demo.
  bool firstRunDone() const;
  void setFirstRunDone(bool value);
  // The value last given to an ONNX model's dynamic dimension of this name ("batch", "seq"), or
  // `fallback`. A fresh instance remembers them for its own lifetime only.
  qint64 onnxDim(const QString& name, qint64 fallback) const;
  void setOnnxDim(const QString& name, qint64 value);

 private:
  QVariant read(const char* key, const QVariant& fallback) const;
  void write(const char* key, const QVariant& value);
  bool fresh_;
  std::map<QString, qint64> sessionDims_;  // fresh: the dimensions given in this run
};

}  // namespace doppler::studio
