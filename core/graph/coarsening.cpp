// Implementation in progress.
#include "core/graph/coarsening.h"
