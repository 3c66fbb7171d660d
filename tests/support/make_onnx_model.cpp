// Writes a test ONNX model to a file: `make_onnx_model --layers L [--dynamic] [--external]
// --out model.onnx` for GPT-2-style decoder blocks (49 nodes per block after import: 408 blocks
// make a 20,000-node graph), or `--mlp [--small]` / `--conv` for the small models of the import
// tests.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "tests/support/onnx_models.h"

int main(int argc, char** argv) {
  using namespace doppler::testmodels;
  TransformerSpec spec;
  std::string out, kind = "transformer";
  bool small = false;  // --mlp --small: 4 x (8, 16, 4), a seed for the fuzzer
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "make_onnx_model: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--layers")
      spec.layers = std::atoi(value().c_str());
    else if (a == "--d-model")
      spec.d_model = std::atoll(value().c_str());
    else if (a == "--heads")
      spec.heads = std::atoll(value().c_str());
    else if (a == "--seq")
      spec.seq = std::atoll(value().c_str());
    else if (a == "--batch")
      spec.batch = std::atoll(value().c_str());
    else if (a == "--dynamic")
      spec.dynamic = true;
    else if (a == "--external")
      spec.external_weights = true;
    else if (a == "--mlp")
      kind = "mlp";
    else if (a == "--small")
      small = true;
    else if (a == "--conv")
      kind = "conv";
    else if (a == "--out")
      out = value();
    else {
      std::cerr << "make_onnx_model: unknown option " << a << "\n";
      return 2;
    }
  }
  if (out.empty() || spec.layers < 1 || spec.heads < 1 || spec.d_model % spec.heads != 0) {
    std::cerr << "usage: make_onnx_model [--layers L] [--d-model D] [--heads H] [--seq S] "
                 "[--batch B] [--dynamic] [--external] [--mlp|--conv] --out FILE\n";
    return 2;
  }
  const std::string bytes =
      kind == "mlp"    ? (small ? mlpModel(4, {8, 16, 4}) : mlpModel(32, {784, 256, 128, 10}))
      : kind == "conv" ? convNetModel(4)
                       : transformerModel(spec);
  std::ofstream f(out, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) {
    std::cerr << "make_onnx_model: cannot write " << out << "\n";
    return 1;
  }
  return 0;
}
