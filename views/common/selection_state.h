#pragma once
// The node the user selected and the node under the mouse, shared by every view so that hovering
// a bar in the timeline lights its node in the graph and the reverse.
#include <QObject>

namespace doppler::views {

class SelectionState : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  int selected() const { return selected_; }
  int hovered() const { return hovered_; }

  void setSelected(int node);  // -1 clears
  void setHovered(int node);   // -1 clears
  void clear();

 Q_SIGNALS:
  void selectedChanged(int node);
  void hoveredChanged(int node);

 private:
  int selected_ = -1;
  int hovered_ = -1;
};

}  // namespace doppler::views
