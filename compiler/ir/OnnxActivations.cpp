//===- OnnxActivations.cpp - Element-wise functions of one value ----------===//
//
// Clip, Sigmoid, HardSigmoid, HardSwish and Tanh become Activation layers,
// which canonicalize() fuses into the conv before them (the post-processing
// table of the writeback, docs/fixed-point.md "Activation tables"). PyTorch
// exports SiLU and, below opset 14, HardSwish as x * f(x): Mul of a value and
// a Sigmoid / HardSigmoid of that same value becomes the one function. Any
// other Mul (squeeze-and-excitation's per-channel scaling, products of two
// tensors) is refused, naming the node.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <cmath>
#include <fmt/format.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

namespace {

/// The one float of a scalar constant (Clip's min / max inputs).
float scalarOf(const OnnxTensor &T, bool &Ok) {
  Ok = T.Type == OnnxTensor::ElemType::Float && T.Floats.size() == 1;
  return Ok ? T.Floats[0] : 0.0f;
}

} // namespace

unsigned OnnxImporter::readers(const std::string &Name) const {
  unsigned N = 0;
  for (const onnx::NodeProto &Other : GP.node())
    for (const std::string &In : Other.input())
      N += In == Name;
  for (const onnx::ValueInfoProto &Out : GP.output())
    N += Out.name() == Name;
  return N;
}

void OnnxImporter::importActivation(const std::string &Op) {
  Layer L;
  L.Kind = LayerKind::Activation;
  if (Op == "Clip") {
    checkAttributes({"min", "max"});
    float Lo = -INFINITY, Hi = INFINITY;
    if (Opset < 11) {
      Lo = attrFloat("min", Lo);
      Hi = attrFloat("max", Hi);
    } else {
      for (size_t I : {1, 2})
        if (const OnnxTensor *T = optionalConstant(I)) {
          bool Ok;
          float V = scalarOf(*T, Ok);
          if (!Ok)
            fail(fmt::format("'{}' ({}) must be a float32 scalar", I == 1 ? "min" : "max",
                             inputName(I)));
          (I == 1 ? Lo : Hi) = V;
        }
    }
    if (std::isnan(Lo) || std::isnan(Hi) || !(Lo < Hi))
      fail(fmt::format("min {} and max {} do not bound a range", Lo, Hi));
    if (std::isinf(Lo) && std::isinf(Hi)) {
      defineAlias(0, activation(0)); // No bounds: the identity.
      return;
    }
    if (Lo == 0 && std::isinf(Hi)) {
      L.Kind = LayerKind::Relu;
      L.TypeName = "relu";
    } else if (std::isinf(Lo) || std::isinf(Hi)) {
      fail(fmt::format("a clip open on one side (min {}, max {}) is not supported: the table "
                       "needs both bounds (min 0 without a max is a Relu)",
                       Lo, Hi));
    } else {
      L.Activation = Act::Clip, L.ActP0 = Lo, L.ActP1 = Hi;
    }
  } else if (Op == "HardSigmoid") {
    checkAttributes({"alpha", "beta"});
    L.Activation = Act::HardSigmoid;
    L.ActP0 = attrFloat("alpha", 0.2f);
    L.ActP1 = attrFloat("beta", 0.5f);
    if (!(L.ActP0 > 0) || !std::isfinite(L.ActP0) || !std::isfinite(L.ActP1))
      fail(fmt::format("alpha {} must be positive and beta {} finite", L.ActP0, L.ActP1));
  } else {
    checkAttributes({});
    L.Activation = Op == "Sigmoid" ? Act::Sigmoid : Op == "HardSwish" ? Act::HardSwish : Act::Tanh;
  }
  if (L.Kind == LayerKind::Activation)
    L.TypeName = actName(L.Activation, L.ActP0, L.ActP1);
  const OnnxValue &X = activation(0);
  L.Inputs = {X.Layer};
  L.In = L.Out = shapeOf(X.Layer);
  int Id = addLayer(std::move(L));
  defineActivation(0, Id, X.Dims);
}

void OnnxImporter::importMul() {
  checkAttributes({});
  if (inputCount() != 2)
    fail("needs two inputs");
  auto Refuse = [&] {
    fail("only x * sigmoid(x) (SiLU), x * hardsigmoid(x) (HardSwish) and a map times a run-time "
         "vector of one value per channel (squeeze-and-excitation) are supported; products with "
         "constants or of two maps are not yet");
  };
  for (size_t I : {0, 1}) {
    const OnnxValue &F = input(I), &X = input(1 - I);
    if (F.IsConst || X.IsConst || F.Layer < 0)
      continue;
    Layer &Fn = G.Layers[size_t(F.Layer)];
    if (Fn.Kind != LayerKind::Activation || Fn.input() != X.Layer || readers(inputName(I)) != 1)
      continue;
    if (Fn.Activation == Act::Sigmoid) {
      Fn.Activation = Act::Silu;
    } else if (Fn.Activation == Act::HardSigmoid && std::fabs(Fn.ActP0 - 1.0f / 6) < 1e-6f &&
               Fn.ActP1 == 0.5f) {
      // PyTorch's constants (1/6 to the exporter's float precision): x * that
      // is its hardswish.
      Fn.Activation = Act::HardSwish;
    } else {
      Refuse();
    }
    Fn.ActP0 = Fn.ActP1 = 0; // Neither function has parameters.
    Fn.TypeName = actName(Fn.Activation);
    defineActivation(0, F.Layer, F.Dims);
    return;
  }
  // Squeeze-and-excitation: x [N, C, H, W] times s [N, C, 1, 1], both
  // computed at run time: a depthwise 1x1 conv whose weights are s.
  for (size_t I : {0, 1}) {
    const OnnxValue &X = input(I), &Sv = input(1 - I);
    if (X.IsConst || Sv.IsConst || X.Dims.size() != 4 || Sv.Dims.size() != 4)
      continue;
    if (Sv.Dims[1] != X.Dims[1] || Sv.Dims[2] != 1 || Sv.Dims[3] != 1)
      continue;
    Layer L;
    L.TypeName = "scale";
    L.Inputs = {X.Layer, Sv.Layer};
    L.In = shapeOf(X.Layer);
    makeRunTimeScale(L);
    int Id = addLayer(std::move(L));
    defineActivation(0, Id, X.Dims);
    return;
  }
  Refuse();
}
