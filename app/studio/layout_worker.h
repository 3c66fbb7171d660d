#pragma once
// The one thread that calls Graphviz (it is not thread-safe). Lives on its own QThread; requests
// arrive queued, results leave by a queued signal. Results are cached by layout hash (the
// graph's structure and its label sizes), so reopening a graph or flipping between two costs no
// second layout.
#include <QObject>
#include <deque>
#include <map>

#include "views/graph/graph_layout.h"

namespace doppler::studio {

class LayoutWorker : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  static constexpr size_t kCacheSize = 16;

 public Q_SLOTS:
  void layout(std::shared_ptr<const doppler::views::LayoutInput> input);

 Q_SIGNALS:
  // cached: the result came from the cache.
  void layoutReady(doppler::views::LayoutResultPtr result, bool cached);

 private:
  std::map<uint64_t, views::LayoutResultPtr> cache_;
  std::deque<uint64_t> order_;
};

}  // namespace doppler::studio
