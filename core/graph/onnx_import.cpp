// Implementation in progress.
#include "core/graph/onnx_import.h"
