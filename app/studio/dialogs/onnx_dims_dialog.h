#pragma once
// Asks for the values of an ONNX model's dynamic dimensions ("batch", "seq"), one spin box each,
// prefilled with the value last given to a dimension of that name (StudioSettings::onnxDim).
// Opened window-modal and non-blocking (open()); the studio imports again on accept.
#include <QDialog>
#include <map>
#include <string>
#include <vector>

class QSpinBox;
class QLabel;

namespace doppler::studio {

class OnnxDimsDialog : public QDialog {
  Q_OBJECT
 public:
  struct Dim {
    QString name;
    QString tensor;  // an input that has it, for the prompt
    qint64 value = 1;
  };
  OnnxDimsDialog(const QString& path, const std::vector<Dim>& dims, const QString& reason,
                 QWidget* parent = nullptr);
  QString path() const { return path_; }
  // The spin box of a dimension (tests drive it), or null.
  QSpinBox* editor(const QString& name) const;
  std::map<std::string, int64_t> values() const;

 private:
  QString path_;
  std::vector<std::pair<QString, QSpinBox*>> editors_;
};

}  // namespace doppler::studio
