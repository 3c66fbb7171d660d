#pragma once
// The graph view's layout requests answered on the job runner's Layout slot (the one thread that
// calls Graphviz), through the layout cache; Esc abandons a layout the view no longer waits for.
// What the last layout took is kept for the status bar.
#include <QObject>
#include <QString>
#include <memory>

namespace doppler::studio {

class MainWindow;
class LayoutCache;

class LayoutRequests : public QObject {
  Q_OBJECT
 public:
  explicit LayoutRequests(MainWindow* window);
  QString status() const { return status_; }  // "Graphviz dot layout of 43 nodes 0.12 s"

 private:
  MainWindow* window_;
  std::shared_ptr<LayoutCache> cache_;
  QString status_;
};

}  // namespace doppler::studio
