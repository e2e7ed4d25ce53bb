//===- Rng.h - Deterministic random numbers for weights and inputs -*- C++ -*-===//
//
// SplitMix64: tiny, fast, and identical on every platform and standard library
// (std::uniform_real_distribution is not), so seeded models give the same bits
// everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_RNG_H
#define SNOW_SUPPORT_RNG_H

#include <cstdint>
#include <string_view>
#include <vector>

namespace snow {

class Rng {
public:
  explicit Rng(uint64_t Seed) : State(Seed) {}
  uint64_t next() {
    uint64_t Z = (State += Gamma);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
    return Z ^ (Z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [Lo, Hi).
  double uniform(double Lo, double Hi) { return Lo + (Hi - Lo) * uniform(); }
  /// Skips N draws in O(1) (the state only counts up by Gamma), so parts of
  /// one long sequence can be drawn in parallel, each from its own copy.
  void discard(uint64_t N) { State += N * Gamma; }
  /// Out[I] = float(uniform(Lo, Hi)) for the next N draws, the same bits as
  /// that loop, eight draws at a time where the CPU has AVX-512DQ, four with
  /// AVX2 (seeded weights are drawn by the hundred million).
  void uniformFloats(float *Out, uint64_t N, double Lo, double Hi);

private:
  static constexpr uint64_t Gamma = 0x9e3779b97f4a7c15ULL;
  uint64_t State;
};

/// FNV-1a, to derive per-layer seeds from names (stable when layers are added).
inline uint64_t hashName(std::string_view S) {
  uint64_t H = 0xcbf29ce484222325ULL;
  for (unsigned char Ch : S)
    H = (H ^ Ch) * 0x100000001b3ULL;
  return H;
}

/// The deterministic input used when the user gives none: CHW order, uniform
/// in [-1, 1), seeded by the model name. snowsim and snowref both call this,
/// so their default runs see the same input.
inline std::vector<float> defaultInputValues(uint64_t Elems, std::string_view ModelName) {
  Rng R(hashName(ModelName) ^ 0x5eed1234abcdULL);
  std::vector<float> V(Elems);
  for (float &X : V)
    X = float(R.uniform(-1.0, 1.0));
  return V;
}

} // namespace snow

#endif
