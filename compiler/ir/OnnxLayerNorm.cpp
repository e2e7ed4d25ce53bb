//===- OnnxLayerNorm.cpp - Channels-last blocks and their LayerNorm ------===//
//
// ConvNeXt (torchvision) moves the channels last inside each block: a
// Transpose with perm [0, 2, 3, 1], PyTorch's layer_norm over the last axis,
// Linear layers (MatMul by a [C, K] constant, then Add of a [K] bias), GELU,
// and a Transpose back. The accelerator's tensors are C x H x W whatever
// ONNX calls them, so the Transposes move nothing: a channels-last value is
// its layer's output with Dims in [N, H, W, C] order (OnnxValue::
// ChannelsLast), and the operators that read one treat the last axis as the
// channels. Below opset 17 (and from PyTorch at any opset it exports to
// with layer_norm decomposed) the norm arrives as ReduceMean, Sub, Pow,
// ReduceMean, Add eps, Sqrt, Div, followed node by node (OnnxValue::LnStep)
// as the GELU chain is, each step read only by the next; the Div makes one
// LayerNorm layer (expanded by canonicalize()), and the Mul / Add by the
// affine constants that follow fold into its gamma and beta. Anything else
// reading a channels-last value is refused, naming the node.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"
#include <fmt/format.h>

using namespace snow::ir;
using namespace snow::ir::detail;

namespace {

/// The operators that may read a channels-last value (its channels are the
/// last axis for all of them) and the chain steps each LnStep goes to.
const char *const ChannelsLastReaders[] = {"Transpose",
                                           "ReduceMean",
                                           "Sub",
                                           "Pow",
                                           "Add",
                                           "Sqrt",
                                           "Div",
                                           "Mul",
                                           "MatMul",
                                           "Erf",
                                           "Identity",
                                           "Dropout",
                                           "LayerNormalization"};
const char *const LnNext[] = {"", "Sub", "Pow or Div", "ReduceMean", "Add", "Sqrt", "Div"};

} // namespace

void OnnxImporter::checkChannelsLastReader(const std::string &Op, const std::string &Name,
                                           const OnnxValue &V, int Input) const {
  if (V.LnStep) {
    const bool Next =
        V.LnStep == 2 ? (Op == "Pow" || Op == "Div") && Input == 0 : Op == LnNext[V.LnStep];
    if (!Next)
      fail(fmt::format("input '{}' is step {} of a layer_norm (ReduceMean, Sub, Pow, "
                       "ReduceMean, Add, Sqrt, Div over the channels); only the chain's next "
                       "node ({}) may read it",
                       Name, V.LnStep, LnNext[V.LnStep]));
    return;
  }
  if (!V.ChannelsLast)
    return;
  for (const char *R : ChannelsLastReaders)
    if (Op == R)
      return;
  fail(fmt::format("input '{}' {} has its channels last (after a Transpose with perm [0, 2, 3, "
                   "1]); only a layer_norm over them, a MatMul by a [C, K] constant, element-wise "
                   "Add / Mul / GELU and the Transpose back may read it",
                   Name, dimsStr(V.Dims)));
}

bool OnnxImporter::transposeChannelsLast(const OnnxValue &X, const std::vector<int64_t> &Perm) {
  if (X.Dims.size() != 4 || X.chansPending() || X.ChanFactored || X.padPending())
    return false;
  OnnxValue V = X;
  if (!X.ChannelsLast && Perm == std::vector<int64_t>{0, 2, 3, 1}) {
    V.Dims = {X.Dims[0], X.Dims[2], X.Dims[3], X.Dims[1]};
    V.ChannelsLast = true;
  } else if (X.ChannelsLast && Perm == std::vector<int64_t>{0, 3, 1, 2}) {
    V.Dims = {X.Dims[0], X.Dims[3], X.Dims[1], X.Dims[2]};
    V.ChannelsLast = false;
  } else {
    return false;
  }
  defineAlias(0, V);
  return true;
}

bool OnnxImporter::isLayerNormStep(const std::string &Op) const {
  if (Op == "LayerNormalization")
    return true;
  auto Step = [&](size_t I) -> int {
    if (inputCount() <= I)
      return -1;
    const OnnxValue &V = input(I);
    return V.IsConst ? -1 : V.LnStep;
  };
  if (Op == "ReduceMean")
    return !input(0).IsConst && input(0).ChannelsLast && (Step(0) == 0 || Step(0) == 3);
  if (Op == "Sub")
    return Step(1) == 1;
  if (Op == "Pow" || Op == "Sqrt")
    return Step(0) == (Op == "Pow" ? 2 : 5);
  if (Op == "Add")
    return Step(0) == 4 || Step(1) == 4;
  if (Op == "Div")
    return Step(1) == 6;
  return false;
}

void OnnxImporter::importLayerNormStep(const std::string &Op) {
  auto ScalarConst = [&](size_t I, const char *What) {
    const OnnxValue &V = input(I);
    if (!V.IsConst || V.Const->Type != OnnxTensor::ElemType::Float || V.Const->Floats.size() != 1)
      fail(fmt::format("'{}' must be a float scalar constant ({} of a layer_norm)", inputName(I),
                       What));
    return V.Const->Floats[0];
  };
  auto MustReadOnce = [&](size_t I) {
    if (readers(inputName(I)) != 1)
      fail(fmt::format("'{}' is read by {} nodes; inside a layer_norm only the chain's next node "
                       "may read it",
                       inputName(I), readers(inputName(I))));
  };
  auto Next = [&](OnnxValue V, uint8_t Step) {
    V.LnStep = Step;
    return V;
  };
  if (Op == "LayerNormalization") {
    checkAttributes({"axis", "epsilon", "stash_type"});
    onlyFirstOutput("the mean and inverse deviation outputs are not computed");
    const OnnxValue &X = activation(0);
    const int64_t R = int64_t(X.Dims.size()), Axis = attrInt("axis", -1);
    if (!X.ChannelsLast || (Axis != -1 && Axis != R - 1))
      fail(fmt::format("only a normalisation over the channels is supported: axis {} of {} "
                       "(a channels-last [N, H, W, C] with axis -1)",
                       Axis, dimsStr(X.Dims)));
    Layer L;
    L.Kind = LayerKind::LayerNorm;
    L.TypeName = "layernorm";
    L.Inputs = {X.Layer};
    L.Eps = attrFloat("epsilon", 1e-5f);
    if (!(L.Eps > 0))
      fail(fmt::format("epsilon {} must be positive", L.Eps));
    L.Gamma = perChannelConstant(1, X, "LayerNormalization");
    L.Beta = inputCount() > 2 && !inputName(2).empty()
                 ? perChannelConstant(2, X, "LayerNormalization")
                 : std::vector<float>(shapeOf(X.Layer).C, 0.0f);
    defineLike(std::move(L), X);
    return;
  }
  if (Op == "ReduceMean") {
    checkAttributes({"axes", "keepdims"});
    const OnnxValue &X = activation(0);
    const int64_t R = int64_t(X.Dims.size());
    std::vector<int64_t> Axes =
        Opset < 18 ? attrInts("axes", {}) : std::vector<int64_t>(); // 18+: an input
    if (Opset >= 18)
      if (const OnnxTensor *A = optionalConstant(1))
        Axes = A->Ints;
    if (Axes.size() != 1 || (Axes[0] != -1 && Axes[0] != R - 1) || attrInt("keepdims", 1) != 1)
      fail(fmt::format("a mean over axes {} of channels-last {}: only the mean over the channels "
                       "(axes [-1], keepdims 1) of a layer_norm is supported",
                       dimsStr(Axes), dimsStr(X.Dims)));
    if (X.LnStep == 3)
      MustReadOnce(0);
    OnnxValue V = Next(X, X.LnStep == 0 ? 1 : 4);
    V.Dims.back() = 1;
    defineAlias(0, V);
    return;
  }
  if (Op == "Sub") {
    const OnnxValue &X = activation(0), &M = input(1);
    MustReadOnce(1);
    if (X.LnStep != 0 || !X.ChannelsLast || X.Layer != M.Layer)
      fail(fmt::format("'{}' minus the mean of another tensor: only x minus its own mean over the "
                       "channels (a layer_norm) is supported",
                       inputName(0)));
    defineAlias(0, Next(X, 2));
    return;
  }
  if (Op == "Pow") {
    if (ScalarConst(1, "the exponent of its variance") != 2.0f)
      fail("only the square (exponent 2) of a layer_norm's centred values is supported");
    defineAlias(0, Next(input(0), 3));
    return;
  }
  if (Op == "Add") {
    const size_t V = input(0).IsConst ? 1 : 0;
    MustReadOnce(V);
    OnnxValue Out = Next(input(V), 5);
    Out.LnEps = ScalarConst(1 - V, "its epsilon");
    if (!(Out.LnEps > 0))
      fail(fmt::format("the layer_norm's epsilon {} must be positive", Out.LnEps));
    defineAlias(0, Out);
    return;
  }
  if (Op == "Sqrt") {
    MustReadOnce(0);
    defineAlias(0, Next(input(0), 6));
    return;
  }
  // Div: the centred values (step 2) by the root (step 6) of the same x.
  const OnnxValue &D = input(0), &S = input(1);
  MustReadOnce(1);
  if (D.LnStep != 2 || D.Layer != S.Layer || readers(inputName(0)) != 2)
    fail(fmt::format("'{}' divided by a layer_norm's deviation: only that layer_norm's own "
                     "centred values (read by its Pow and this Div alone) may be",
                     inputName(0)));
  Layer L;
  L.Kind = LayerKind::LayerNorm;
  L.TypeName = "layernorm";
  L.Inputs = {D.Layer};
  L.In = L.Out = shapeOf(D.Layer);
  L.Eps = S.LnEps;
  L.Gamma.assign(L.In.C, 1.0f);
  L.Beta.assign(L.In.C, 0.0f);
  int Id = addLayer(std::move(L));
  OnnxValue V;
  V.Layer = Id;
  V.Dims = D.Dims;
  V.ChannelsLast = true;
  defineAlias(0, V);
}

void OnnxImporter::importChannelsLastMatMul() {
  checkAttributes({});
  const OnnxValue &X = activation(0);
  const OnnxTensor *W = input(1).IsConst ? input(1).Const : nullptr;
  const int64_t C = X.Dims.back();
  if (!W || W->Type != OnnxTensor::ElemType::Float || W->Dims.size() != 2 || W->Dims[0] != C)
    fail(fmt::format("a channels-last {} times '{}': only a float constant [{}, K] (a Linear "
                     "over the channels) is supported",
                     dimsStr(X.Dims), inputName(1), C));
  const int64_t K = W->Dims[1];
  if (K < 1 || K > OnnxMaxDim)
    fail(fmt::format("{} output channels, outside 1..{}", K, OnnxMaxDim));
  Layer L;
  L.Kind = LayerKind::Conv;
  L.TypeName = "conv";
  L.Inputs = {X.Layer};
  L.In = shapeOf(X.Layer);
  L.Out = {uint32_t(K), L.In.H, L.In.W};
  L.Weights.resize(size_t(K * C));
  for (int64_t O = 0; O < K; ++O)
    for (int64_t I = 0; I < C; ++I)
      L.Weights[size_t(O * C + I)] = W->Floats[size_t(I * K + O)];
  L.Bias.assign(size_t(K), 0.0f);
  L.HasBias = false;
  std::vector<int64_t> Dims = X.Dims;
  Dims.back() = K;
  int Id = addLayer(std::move(L));
  defineActivation(0, Id, Dims);
}
