#pragma once
// Deterministic pseudo-random numbers, the one place for them. The standard library's
// distributions are not specified bit for bit, so a seed would give other results on another
// standard library; these few lines give the same numbers everywhere.
//
// - SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA
//   2014): a step and a finaliser, used to derive seeds and as a small generator.
// - Rng: xoshiro256** (Blackman, Vigna), seeded through SplitMix64, for the search methods' many
//   draws.
#include <cmath>
#include <cstdint>

namespace doppler {

// The golden-ratio increment of SplitMix64.
inline constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;

// SplitMix64's finaliser: a bijective mix of 64 bits.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// One SplitMix64 step: advances `state` and returns the next value.
constexpr uint64_t splitMix64Next(uint64_t& state) {
  return mix64(state += kGoldenGamma);
}

// A seed for item `index` (an episode, a sample) of a run seeded with `seed`, so that items do
// not depend on each other. `offset` keeps the streams of two uses apart.
constexpr uint64_t seedFor(uint64_t seed, uint64_t index, uint64_t offset = 0x632be59bd9b4e019ULL) {
  return mix64(seed * kGoldenGamma + index + offset);
}

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() { return splitMix64Next(state_); }
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
  uint64_t s = mix.next() ^ (a * kGoldenGamma);
  s = SplitMix64(s).next() ^ (b * 0xc2b2ae3d27d4eb4fULL);
  s = SplitMix64(s).next() ^ (c * 0x165667b19e3779f9ULL);
  return SplitMix64(SplitMix64(s).next());
}

// xoshiro256**: a small, fast generator with a long period for the search methods.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t x = seed;
    for (auto& s : s_) s = splitMix64Next(x);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n) for 0 < n < 2^31 (multiply-shift on 32 random bits; bias below n / 2^32).
  int below(int n) { return static_cast<int>(((next() >> 32) * static_cast<uint64_t>(n)) >> 32); }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace doppler
