#include "views/common/selection_state.h"

namespace doppler::views {

void SelectionState::setSelected(int node) {
  if (node == selected_) return;
  selected_ = node;
  Q_EMIT selectedChanged(node);
}

void SelectionState::setHovered(int node) {
  if (node == hovered_) return;
  hovered_ = node;
  Q_EMIT hoveredChanged(node);
}

void SelectionState::clear() {
  setHovered(-1);
  setSelected(-1);
}

}  // namespace doppler::views
