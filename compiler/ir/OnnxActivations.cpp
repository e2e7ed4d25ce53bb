//===- OnnxActivations.cpp - Element-wise functions of one value ----------===//
//
// Clip, Sigmoid, HardSigmoid, HardSwish and Tanh become Activation layers,
// which canonicalize() fuses into the conv before them (the post-processing
// table of the writeback, docs/fixed-point.md "Activation tables"). PyTorch
// exports SiLU and, below opset 14, HardSwish as x * f(x): Mul of a value and
// a Sigmoid / HardSigmoid of that same value becomes the one function; a
// map times a run-time per-channel vector (squeeze-and-excitation) a conv
// with run-time weights, and times a constant a per-channel scale
// (importConstAffine), and two maps of one shape a Mul layer (vmul); other
// products are refused, naming the node. GELU has no node below opset 20:
// PyTorch writes x * 0.5 * (1 + erf(x / sqrt 2)) as Div, Erf, Add, Mul, Mul,
// which is followed node by node (OnnxValue::GeluStep) from a Div whose
// only readers are Erf nodes, and becomes the one function at its last
// Mul; any other reader of a step is refused.
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
  defineLike(std::move(L), X);
}

void OnnxImporter::importMul() {
  checkAttributes({});
  if (inputCount() != 2)
    fail("needs two inputs");
  auto Refuse = [&] {
    fail(fmt::format("inputs '{}' {} and '{}' {}: only x * sigmoid(x) (SiLU), x * "
                     "hardsigmoid(x) (HardSwish), a map times a run-time vector of one value per "
                     "channel (squeeze-and-excitation), a map times a constant per channel and "
                     "two run-time tensors of one shape are supported",
                     inputName(0), dimsStr(input(0).Dims), inputName(1), dimsStr(input(1).Dims)));
  };
  if (input(0).IsConst != input(1).IsConst)
    return importConstAffine("Mul");
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
      continue; // Another function times its input: a product of two maps.
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
    if (X.IsConst || Sv.IsConst || X.Dims.size() != 4 || Sv.Dims.size() != 4 || X.ChannelsLast ||
        Sv.ChannelsLast)
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
  // Two run-time tensors of one shape: the element-wise product (vmul).
  const OnnxValue &A = input(0), &B = input(1);
  if (A.IsConst || B.IsConst || A.Dims != B.Dims || A.ChannelsLast != B.ChannelsLast)
    Refuse();
  defineProduct(A, B);
}

void OnnxImporter::defineProduct(const OnnxValue &A, const OnnxValue &B) {
  Layer L;
  L.Kind = LayerKind::Mul;
  L.TypeName = "mul";
  L.Inputs = {A.Layer, B.Layer};
  defineLike(std::move(L), A);
}

void OnnxImporter::importPow() {
  checkAttributes({});
  const OnnxValue &X = activation(0);
  const OnnxValue &E = input(1);
  if (!E.IsConst || E.Const->Type != OnnxTensor::ElemType::Float || E.Const->Floats.size() != 1)
    fail(fmt::format("exponent '{}' must be a float scalar constant", inputName(1)));
  const float P = E.Const->Floats[0];
  if (P == 2.0f)
    return defineProduct(X, X);
  if (P != -0.5f)
    fail(fmt::format("exponent {}: only -0.5 (rsqrt) and 2 (a square) are supported", P));
  Layer L; // The normalised table (docs/fixed-point.md).
  L.Kind = LayerKind::Activation;
  L.Activation = Act::Rsqrt;
  L.TypeName = "rsqrt";
  L.Inputs = {X.Layer};
  defineLike(std::move(L), X);
}

bool OnnxImporter::isGeluStep(const std::string &Op) const {
  if (Op == "Erf")
    return true;
  if (Op != "Div" && Op != "Add" && Op != "Mul")
    return false;
  for (size_t I = 0; I < inputCount(); ++I) {
    auto It = Values.find(inputName(I));
    if (It != Values.end() && It->second.GeluStep)
      return true;
  }
  if (Op != "Div" || inputCount() != 2 || Node->output_size() < 1)
    return false;
  // The first step: a run-time value divided by a constant and read by Erf
  // alone (any other division by a constant is a per-channel scale).
  auto X = Values.find(inputName(0)), K = Values.find(inputName(1));
  if (X == Values.end() || X->second.IsConst || K == Values.end() || !K->second.IsConst)
    return false;
  unsigned Erfs = 0;
  for (const onnx::NodeProto &Other : GP.node())
    for (const std::string &In : Other.input())
      if (In == Node->output(0))
        Erfs += Other.op_type() == "Erf";
  return Erfs > 0 && Erfs == readers(Node->output(0));
}

void OnnxImporter::importGeluStep(const std::string &Op) {
  checkAttributes({});
  const std::string Form = "GELU as PyTorch exports it, x * 0.5 * (1 + erf(x / sqrt 2))";
  auto Step = [&](size_t I) -> const OnnxValue * {
    auto It = Values.find(inputName(I));
    return It == Values.end() ? nullptr : &It->second;
  };
  auto IsScalar = [&](size_t I, double Want) {
    const OnnxValue *V = Step(I);
    bool Ok = V && V->IsConst && V->Const;
    const float F = Ok ? scalarOf(*V->Const, Ok) : 0.0f;
    return Ok && std::fabs(double(F) - Want) <= 1e-6 * Want;
  };
  auto Next = [&](const OnnxValue &V) {
    OnnxValue W = V;
    ++W.GeluStep;
    defineAlias(0, W);
  };
  if (Op == "Erf") {
    if (inputCount() != 1 || !Step(0) || Step(0)->GeluStep != 1)
      fail(fmt::format("only erf(x / sqrt 2) of {} is supported", Form));
    return Next(*Step(0));
  }
  if (inputCount() != 2)
    fail("needs two inputs");
  if (Op == "Div") { // isGeluStep: a run-time x over a constant, read by Erf alone.
    if (!IsScalar(1, std::sqrt(2.0)))
      fail(fmt::format("a map read by Erf may only be divided by sqrt 2, the first step of {}",
                       Form));
    return Next(activation(0));
  }
  for (size_t I : {0, 1}) {
    const OnnxValue *V = Step(I);
    if (!V || !V->GeluStep)
      continue;
    if (Op == "Add" && V->GeluStep == 2 && IsScalar(1 - I, 1.0))
      return Next(*V);
    if (Op == "Mul" && V->GeluStep == 3) {
      const OnnxValue *X = Step(1 - I);
      if (X && !X->IsConst && !X->GeluStep && !X->chansPending() && !X->padPending() &&
          X->Layer == V->Layer && X->Dims == V->Dims)
        return Next(*V);
    }
    if (Op == "Mul" && V->GeluStep == 4 && IsScalar(1 - I, 0.5)) {
      Layer L;
      L.Kind = LayerKind::Activation;
      L.Activation = Act::Gelu;
      L.TypeName = actName(Act::Gelu);
      L.Inputs = {V->Layer};
      defineLike(std::move(L), *V);
      return;
    }
    static const char *const Want[] = {"", "", "erf(x / sqrt 2) + 1",
                                       "x * (1 + erf(x / sqrt 2)) with the same x",
                                       "x * (1 + erf(x / sqrt 2)) * 0.5"};
    fail(fmt::format("step {} of a GELU must be {}: {}", V->GeluStep + 1, Want[V->GeluStep], Form));
  }
  fail(fmt::format("not a step of {}", Form));
}
