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
#include <cassert>
#include <cmath>
#include <fmt/format.h>

using namespace snow::ir;

namespace {

std::string shapeStr(const std::vector<uint64_t> &Shape) {
  if (Shape.size() == 1)
    return fmt::format("({},)", Shape[0]);
  return fmt::format("({})", fmt::join(Shape, ", "));
}

} // namespace

void snow::ir::seedWeights(Layer &L, uint64_t Seed, bool HasBias) {
  assert((L.Kind == LayerKind::Conv || L.Kind == LayerKind::Fc) &&
         "only conv and fc layers have weights");
  assert(L.Groups > 0 && L.In.C % L.Groups == 0 && "groups must divide the input channels");
  snow::Rng R(Seed ^ snow::hashName(L.Name));
  // An fc's fan-in is its whole (flattened) input, exactly as for the conv
  // whose kernel covers that input, which canonicalize() turns it into.
  uint64_t FanIn =
      L.Kind == LayerKind::Fc ? L.In.elems() : uint64_t(L.In.C / L.Groups) * L.KH * L.KW;
  double A = std::sqrt(6.0 / double(FanIn));
  snow::reserveHuge(L.Weights, uint64_t(L.Out.C) * FanIn);
  L.Weights.resize(uint64_t(L.Out.C) * FanIn);
  // One sequence, drawn in parts on several threads (a large model has tens
  // of millions of weights): each part skips to its first draw.
  snow::parallelFor(L.Weights.size(), 1, 1 << 18, [&](size_t Begin, size_t End) {
    snow::Rng Part = R;
    Part.discard(Begin);
    for (size_t I = Begin; I < End; ++I)
      L.Weights[I] = float(Part.uniform(-A, A));
  });
  R.discard(L.Weights.size());
  L.Bias.assign(L.Out.C, 0.0f);
  if (HasBias)
    for (float &B : L.Bias)
      B = float(R.uniform(-0.1, 0.1));
}

void snow::ir::seedBatchNorm(Layer &L, uint64_t Seed) {
  assert(L.Kind == LayerKind::BatchNorm && "only batchnorm layers have statistics");
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
