#pragma once
// TORTA's micro-layer matching of a request to a server within its region (digest §3): the
// argmax of w_hw Comp_hw + w_load Comp_load + w_loc Comp_loc over the servers with room for it.
//   Comp_hw   = min(1, server rate / the region's fastest) x TypeMatch, TypeMatch 1 when the
//               request's KV cache needs at most half the server's KV capacity, else 0.5 (large
//               requests prefer large memories);
//   Comp_load = exp(-(KV share in use + batch share));
//   Comp_loc  = exp(-(now - last time the server admitted a request from the same home) / 60 s),
//               the warm-cache proxy: the traces carry no session or prefix ids, so requests from
//               one home region stand in for requests that share cached context.
// The weights are not given by the paper; these are an assumption. The simulator does not model a
// prefix-cache hit, so Comp_loc only steers placement; it does not shorten prefill.
namespace doppler::fleet::sim {

struct MatchWeights {
  double hw = 0.2, load = 0.7, loc = 0.1;
};

struct ServerView {
  double rate = 0, fastest_rate = 1;  // requests/s at the demand's mean sizes
  double kv_tokens = 1, kv_used = 0;
  int batch = 0, max_batch = 256;
  double since_same_home_s = 1e30;  // since it last admitted a request from this home
};

double matchScore(const ServerView& server, double need_tokens, const MatchWeights& w = {});

}  // namespace doppler::fleet::sim
