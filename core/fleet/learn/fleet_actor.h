#pragma once
// The learned networks as TortaPolicy (torta_policy.h) sees them: plain vectors in and out, so
// the policy, the safety layer and the allocator stay plain C++ and LibTorch stays inside the
// module (core/train/torch_module.h), which implements this for a loaded checkpoint and for the
// networks it is training.
#include <nlohmann/json.hpp>
#include <vector>

namespace doppler::fleet::learn {

// TORTA's demand predictor looks at the last K = 5 slots (digest §3).
inline constexpr int kPredictorWindow = 5;

struct ActorOutput {
  std::vector<double> mean;     // actionSize(n) values (torta_features.h)
  std::vector<double> log_std;  // the Gaussian's log standard deviation per action value
  double value = 0;             // the value network's estimate of the state
};

class FleetActor {
 public:
  virtual ~FleetActor() = default;
  virtual int regions() const = 0;
  virtual ActorOutput act(const std::vector<float>& observation) const = 0;
  // Next slot's arrivals by home region from the last kPredictorWindow slots' arrivals (oldest
  // first) and the next slot's start time; empty when there is no trained predictor.
  virtual std::vector<double> predict(const std::vector<std::vector<double>>& history,
                                      double next_start_s) const = 0;
  // What the checkpoint says about itself (topology, trace, load, episodes, accuracy, ...).
  virtual const nlohmann::json& meta() const = 0;
};

// The predictor's input and how its output maps back to requests: each region is scaled by its
// window mean + 1 (so busy and quiet regions look alike), the target is the log of the next
// slot over that scale, and the time of day comes as sine and cosine.
struct PredictorEncoding {
  std::vector<float> input;   // kPredictorWindow * n + 2
  std::vector<double> scale;  // per region
};
PredictorEncoding encodePredictorInput(const std::vector<std::vector<double>>& history,
                                       double next_start_s);
int predictorInputSize(int regions);
// The network's per-region output back to requests, and the training target for a truth.
double decodePrediction(double output, double scale);
double predictionTarget(double truth, double scale);

// TORTA's prediction accuracy PA = exp(-mean relative error) over (slot, region) pairs with at
// least one request (`truth` and `predicted` are flat and the same length).
double predictionAccuracy(const std::vector<double>& truth, const std::vector<double>& predicted);

}  // namespace doppler::fleet::learn
