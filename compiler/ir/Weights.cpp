//===- Weights.cpp - Where a model's float weights come from --------------===//
//
// Two sources: .npy files exported from a trained network, or a seeded
// initializer for models that only exist to exercise the toolchain. Seeded
// weights must be bit-identical on every platform (golden files and the
// simulator-vs-reference tests depend on them), hence SplitMix64 rather than
// <random>, and a per-layer seed derived from the layer's name so adding a
// layer does not change the weights of the others. The scale is He-style
// uniform, sqrt(6 / fan_in), which keeps activations of a ReLU chain in a
// stable range, so deep seeded models neither saturate Q8.8 nor fade to zero.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Graph.h"

#include "snow/support/HugePages.h"
#include "snow/support/Npy.h"
#include "snow/support/Parallel.h"
#include "snow/support/Rng.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

using namespace snow::ir;

namespace {

std::string shapeStr(const std::vector<uint64_t> &Shape) {
  if (Shape.size() == 1)
    return fmt::format("({},)", Shape[0]);
  return fmt::format("({})", fmt::join(Shape, ", "));
}

} // namespace

namespace {

/// The draws seedWeights makes for L, before any are made: an fc's fan-in is
/// its whole (flattened) input, exactly as for the conv whose kernel covers
/// that input, which canonicalize() turns it into.
SeededWeights recipe(const Layer &L, uint64_t Seed) {
  assert((L.Kind == LayerKind::Conv || L.Kind == LayerKind::Fc) &&
         "only conv and fc layers have weights");
  assert(L.Groups > 0 && L.In.C % L.Groups == 0 && "groups must divide the input channels");
  SeededWeights S;
  S.Start = snow::Rng(Seed ^ snow::hashName(L.Name));
  S.PerChannel = L.Kind == LayerKind::Fc ? L.In.elems() : uint64_t(L.In.C / L.Groups) * L.KH * L.KW;
  S.Bound = std::sqrt(6.0 / double(S.PerChannel));
  S.Channels = L.Out.C;
  return S;
}

/// The bias draws follow the weight draws (so a seeded bias does not depend
/// on whether the weights came from a file).
void drawBias(Layer &L, const SeededWeights &S, bool HasBias) {
  snow::Rng R = S.Start;
  R.discard(S.PerChannel * L.Out.C);
  L.Bias.assign(L.Out.C, 0.0f);
  if (HasBias)
    for (float &B : L.Bias)
      B = float(R.uniform(-0.1, 0.1));
}

/// Values drawn at a time where a caller wants a statistic, not the values.
constexpr uint64_t DrawChunk = 4096;

/// Out[I] = float(double(Out[I]) * S) for N values, four at a time: each
/// lane converts, multiplies and rounds as the scalar loop does, so the bits
/// are its bits (a batchnorm-folded model scales every weight it draws).
void scaleRun(float *Out, uint64_t N, double S) {
  using F4 = float __attribute__((vector_size(16)));
  using D4 = double __attribute__((vector_size(32)));
  uint64_t I = 0;
  for (; I + 4 <= N; I += 4) {
    F4 X;
    std::memcpy(&X, Out + I, sizeof X);
    const F4 Y = __builtin_convertvector(__builtin_convertvector(X, D4) * S, F4);
    std::memcpy(Out + I, &Y, sizeof Y);
  }
  for (; I < N; ++I)
    Out[I] = float(double(Out[I]) * S);
}

} // namespace

void SeededWeights::draw(uint64_t Begin, uint64_t N, float *Out) const {
  snow::Rng R = Start;
  R.discard(Begin);
  const uint64_t End = Begin + N;
  R.uniformFloats(Out, N, -Bound, Bound);
  if (Scale.empty())
    return;
  for (uint64_t I = Begin; I < End;) {
    const uint64_t O = I / PerChannel, Stop = std::min(End, (O + 1) * PerChannel);
    scaleRun(Out, Stop - I, Scale[O]);
    Out += Stop - I;
    I = Stop;
  }
}

void SeededWeights::drawAll(float *Out) const {
  // One sequence, drawn in parts on several threads (a large model has tens
  // of millions of weights): each part skips to its first draw.
  snow::parallelFor(size(), 1, 1 << 18,
                    [&](size_t Begin, size_t End) { draw(Begin, End - Begin, Out + Begin); });
}

std::vector<float> SeededWeights::drawAll() const {
  std::vector<float> V;
  snow::reserveHuge(V, size());
  V.resize(size());
  drawAll(V.data());
  return V;
}

float SeededWeights::maxAbs() const {
  float M = 0;
  for (float C : ChannelMax)
    M = std::max(M, C);
  return M;
}

void snow::ir::seedWeights(Layer &L, uint64_t Seed, bool HasBias) {
  SeededWeights S = recipe(L, Seed);
  L.Weights = S.drawAll();
  drawBias(L, S, HasBias);
}

/// The largest |X[K]| of N drawn values (finite, so the order of the
/// comparisons does not matter): in eight independent lanes, which the
/// compiler vectorizes, where one running maximum (a dependency chain of
/// compares) took as long as the draws.
static float maxAbsOf(const float *X, uint64_t N) {
  constexpr unsigned W = 8;
  float M[W] = {};
  uint64_t K = 0;
  for (; K + W <= N; K += W)
    for (unsigned J = 0; J < W; ++J)
      M[J] = std::max(M[J], std::fabs(X[K + J]));
  for (; K < N; ++K)
    M[0] = std::max(M[0], std::fabs(X[K]));
  return *std::max_element(M, M + W);
}

void snow::ir::deferSeededWeights(Layer &L, uint64_t Seed, bool HasBias) {
  SeededWeights S = recipe(L, Seed);
  S.ChannelMax.assign(L.Out.C, 0.0f);
  snow::parallelFor(L.Out.C, double(S.PerChannel), 1 << 18, [&](size_t Begin, size_t End) {
    float Buf[DrawChunk];
    for (size_t O = Begin; O < End; ++O)
      for (uint64_t I = 0; I < S.PerChannel; I += DrawChunk) {
        const uint64_t N = std::min(DrawChunk, S.PerChannel - I);
        S.draw(O * S.PerChannel + I, N, Buf);
        S.ChannelMax[O] = std::max(S.ChannelMax[O], maxAbsOf(Buf, N));
      }
  });
  drawBias(L, S, HasBias);
  L.Weights.clear();
  L.Seeded = std::move(S);
}

void snow::ir::materializeWeights(Layer &L) {
  if (!L.Seeded)
    return;
  L.Weights = L.Seeded->drawAll();
  L.Seeded.reset();
}

void snow::ir::materializeWeights(Graph &G) {
  for (Layer &L : G.Layers)
    materializeWeights(L);
}

void snow::ir::seedBatchNorm(Layer &L, uint64_t Seed) {
  assert((L.Kind == LayerKind::BatchNorm || L.Kind == LayerKind::LayerNorm) &&
         "only batchnorm and layernorm layers have gamma and beta");
  snow::Rng R(Seed ^ snow::hashName(L.Name));
  // Ranges close to a trained network's: the folded scale stays near 1, so
  // seeded models keep the activation range the conv initializer aims for.
  auto Draw = [&](std::vector<float> &V, double Lo, double Hi) {
    V.resize(L.In.C);
    for (float &X : V)
      X = float(R.uniform(Lo, Hi));
  };
  Draw(L.Gamma, 0.8, 1.2);
  Draw(L.Beta, -0.1, 0.1);
  if (L.Kind == LayerKind::LayerNorm)
    return; // Its statistics are the frame's own.
  Draw(L.Mean, -0.1, 0.1);
  Draw(L.Var, 0.5, 1.5);
}

llvm::Error snow::ir::readTensorNpy(const std::string &Path, const std::vector<uint64_t> &Shape,
                                    std::vector<float> &Out) {
  auto ArrOrErr = snow::readNpy(Path);
  if (!ArrOrErr)
    return ArrOrErr.takeError();
  auto Fail = [&](const std::string &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s", Path.c_str(),
                                   Msg.c_str());
  };
  if (ArrOrErr->Type != snow::NpyArray::DType::F32)
    return Fail("weights must be float32 ('<f4'), not int16");
  if (ArrOrErr->Shape != Shape)
    return Fail("shape " + shapeStr(ArrOrErr->Shape) + " does not match the expected " +
                shapeStr(Shape));
  // A NaN or infinity would make the quantizer's format search meaningless.
  for (size_t I = 0; I < ArrOrErr->F32.size(); ++I)
    if (!std::isfinite(ArrOrErr->F32[I]))
      return Fail(fmt::format("value {} at flat index {} is not finite", ArrOrErr->F32[I], I));
  Out = std::move(ArrOrErr->F32);
  return llvm::Error::success();
}
