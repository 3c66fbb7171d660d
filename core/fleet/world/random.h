#pragma once
// Deterministic pseudo-random numbers for the fleet world: SplitMix64 (Steele, Lea, Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014). The standard library's
// distributions are not specified bit for bit, so a seed would give other worlds on another
// standard library; these few lines give the same numbers everywhere.
#include <cmath>
#include <cstdint>

namespace doppler::fleet {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Exponential with rate `rate` (> 0).
  double exponential(double rate) { return -std::log1p(-uniform()) / rate; }
  // Standard normal (Box-Muller; one of the pair is dropped for simplicity).
  double normal() {
    const double u = 1.0 - uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }

 private:
  uint64_t state_;
};

// A stream for one purpose: the seed mixed with up to three keys (region index, GPU type, ...),
// so that adding a region or a draw elsewhere leaves the others' numbers unchanged.
inline SplitMix64 streamFor(uint64_t seed, uint64_t a, uint64_t b = 0, uint64_t c = 0) {
  SplitMix64 mix(seed ^ 0x6a09e667f3bcc909ULL);
  uint64_t s = mix.next() ^ (a * 0x9e3779b97f4a7c15ULL);
  s = SplitMix64(s).next() ^ (b * 0xc2b2ae3d27d4eb4fULL);
  s = SplitMix64(s).next() ^ (c * 0x165667b19e3779f9ULL);
  return SplitMix64(SplitMix64(s).next());
}

}  // namespace doppler::fleet
