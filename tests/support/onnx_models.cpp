#include "tests/support/onnx_models.h"
