//===- OnnxPad.cpp - Pad, folded into the window that reads it ------------===//
//
// The hardware has no padding unit, but every window it computes pads its
// input: a convolution with zeros (ref/lib/Execute.cpp skips padding taps,
// i.e. reads 0), an average pooling with zeros counted in the divisor (the
// sum times AvgMult = 2^AvgShift / (KH * KW): count_include_pad = 1), a
// max pooling with the smallest int16, which never wins. Exporters write a
// zero Pad before a window (PyTorch: avg_pool2d with padding and
// count_include_pad, DenseNet's transitions), and the Pad's zeros can then
// become the window's own padding exactly:
//
// * Conv: zeros either way;
// * AveragePool: the Pad's zeros are input to the pooling, so they count in
//   the divisor whatever count_include_pad says, which is the hardware's
//   divisor (the operator's own pads must still be count_include_pad = 1);
// * MaxPool: a zero is not the smallest value, so only where the input is
//   non-negative (after a relu) does padding with zeros give the same
//   maximum as padding that never wins.
//
// When every reader of the Pad is such a window, the Pad defines no layer:
// its output is its input with the pads pending (OnnxValue::PadT..PadR),
// which each reader adds to its own. Otherwise (another operator reads it,
// a max pooling of values of either sign, the graph output) it becomes a
// layer that computes it exactly: a depthwise 1x1 conv with unit weights and
// no bias, padded as the Pad pads, whose outputs in the padding are the
// bias, 0. A Pad no layer can compute is refused: a mode other than
// constant, a value other than 0, pads on the batch or channel axes,
// negative pads (cropping).
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <fmt/format.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

void OnnxImporter::importPad() {
  // Before opset 11 the pads and the value are attributes ('paddings' in
  // opset 1), from 11 inputs; opset 18 adds the axes they apply to.
  const bool AttrPads = Opset < 11;
  const char *PadsAttr = Opset < 2 ? "paddings" : "pads";
  if (AttrPads)
    checkAttributes({"mode", PadsAttr, "value"});
  else
    checkAttributes({"mode"});
  const OnnxValue &X = activation(0);
  const std::string Mode = attrString("mode", "constant");
  if (Mode != "constant")
    fail(fmt::format("attribute 'mode' = '{}' is not supported: only constant padding with "
                     "zeros, the padding the hardware's windows make",
                     Mode));
  const size_t R = X.Dims.size();
  std::vector<int64_t> Pads;
  float Value = 0;
  std::vector<int64_t> Axes;
  std::string PadsWhat;
  if (AttrPads) {
    if (!attr(PadsAttr))
      fail(fmt::format("attribute '{}' is required", PadsAttr));
    Pads = attrInts(PadsAttr, {});
    Value = attrFloat("value", 0.0f);
    PadsWhat = fmt::format("attribute '{}'", PadsAttr);
  } else {
    const OnnxTensor &P = constant(1);
    if (P.Type != OnnxTensor::ElemType::Int64 || P.Dims.size() != 1)
      fail(fmt::format("pads '{}' must be a 1-D int64 tensor, got shape {}", inputName(1),
                       dimsStr(P.Dims)));
    Pads = P.Ints;
    if (const OnnxTensor *V = optionalConstant(2)) {
      if (V->elems() != 1)
        fail(fmt::format("constant_value '{}' must be a scalar, got shape {}", inputName(2),
                         dimsStr(V->Dims)));
      Value = V->Type == OnnxTensor::ElemType::Float ? V->Floats[0] : float(V->Ints[0]);
    }
    if (const OnnxTensor *A = optionalConstant(3)) {
      if (A->Type != OnnxTensor::ElemType::Int64 || A->Dims.size() != 1)
        fail(fmt::format("axes '{}' must be a 1-D int64 tensor", inputName(3)));
      Axes = A->Ints;
    }
    PadsWhat = fmt::format("pads '{}'", inputName(1));
  }
  if (Value != 0)
    fail(fmt::format("padding value {} is not supported: only zeros, the padding the "
                     "hardware's windows make",
                     Value));
  if (Axes.empty())
    for (size_t A = 0; A < R; ++A)
      Axes.push_back(int64_t(A));
  if (Pads.size() != 2 * Axes.size())
    fail(fmt::format("{} = {} needs {} values (begin and end for each of {} axes)", PadsWhat,
                     dimsStr(Pads), 2 * Axes.size(), Axes.size()));
  std::vector<int64_t> Begin(R, 0), End(R, 0);
  for (size_t I = 0; I < Axes.size(); ++I) {
    int64_t A = Axes[I] < 0 ? Axes[I] + int64_t(R) : Axes[I];
    if (A < 0 || A >= int64_t(R))
      fail(fmt::format("axis {} is outside the input's rank {}", Axes[I], R));
    Begin[size_t(A)] += Pads[I];
    End[size_t(A)] += Pads[Axes.size() + I];
  }
  for (size_t A = 0; A < R; ++A) {
    if (Begin[A] < 0 || End[A] < 0)
      fail(fmt::format("{} = {} is not supported: a negative pad crops, which no layer does",
                       PadsWhat, dimsStr(Pads)));
    if (Begin[A] > OnnxMaxDim || End[A] > OnnxMaxDim)
      fail(fmt::format("{} = {}: a pad is more than {}", PadsWhat, dimsStr(Pads), OnnxMaxDim));
    bool Spatial = (R == 3 || R == 4) && A >= 2;
    if ((Begin[A] || End[A]) && !Spatial)
      fail(fmt::format("{} = {} on input {} is not supported: only the height and width of "
                       "a rank-4 input (or the length of a rank-3 one) are padded",
                       PadsWhat, dimsStr(Pads), dimsStr(X.Dims)));
  }
  OnnxValue V = X;
  bool Any = false;
  for (size_t A = 2; A < R; ++A) {
    V.Dims[A] += Begin[A] + End[A];
    Any |= Begin[A] || End[A];
    if (V.Dims[A] > OnnxMaxDim)
      fail(fmt::format("output shape {} has a dimension above {}", dimsStr(V.Dims), OnnxMaxDim));
  }
  if (!Any) { // All zeros: an Identity.
    defineAlias(0, V);
    return;
  }
  // X has no pads pending: a Pad reading a Pad makes the first a layer.
  if (R == 4) {
    V.PadT = unsigned(Begin[2]), V.PadB = unsigned(End[2]);
    V.PadL = unsigned(Begin[3]), V.PadR = unsigned(End[3]);
  } else {
    V.PadL = unsigned(Begin[2]), V.PadR = unsigned(End[2]);
  }
  if (padFoldsIntoReaders(X.Layer)) {
    V.PadNode = fmt::format("node {}{} (Pad)", NodeIndex,
                            Node->name().empty() ? "" : " '" + Node->name() + "'");
    defineAlias(0, V);
    return;
  }
  Layer L;
  L.Kind = LayerKind::Conv;
  L.TypeName = "pad";
  L.Inputs = {X.Layer};
  L.In = shapeOf(X.Layer);
  L.Groups = L.In.C;
  L.PadT = V.PadT, L.PadB = V.PadB, L.PadL = V.PadL, L.PadR = V.PadR;
  L.Out = {L.In.C, L.In.H + L.PadT + L.PadB, L.In.W + L.PadL + L.PadR};
  L.Weights.assign(L.In.C, 1.0f);
  L.Bias.assign(L.In.C, 0.0f);
  L.HasBias = false;
  int Id = addLayer(std::move(L));
  defineActivation(0, Id, V.Dims);
}

bool OnnxImporter::padFoldsIntoReaders(int PadInput) const {
  const std::string &Out = Node->output(0);
  if (Out == OutputName)
    return false;
  for (int I = NodeIndex + 1; I < GP.node_size(); ++I) {
    if (!Live[size_t(I)])
      continue;
    const onnx::NodeProto &N = GP.node(I);
    const bool Default = N.domain().empty() || N.domain() == "ai.onnx";
    for (int J = 0; J < N.input_size(); ++J) {
      if (N.input(J) != Out)
        continue;
      const std::string &Op = N.op_type();
      bool Window =
          Default && J == 0 &&
          (Op == "Conv" || Op == "AveragePool" || (Op == "MaxPool" && nonNegative(PadInput)));
      if (!Window)
        return false;
    }
  }
  return true;
}

void OnnxImporter::takePendingPads(const OnnxValue &X, Window &W) const {
  W.PadT += X.PadT, W.PadB += X.PadB, W.PadL += X.PadL, W.PadR += X.PadR;
}

bool OnnxImporter::nonNegative(int LayerIndex) const {
  if (LayerIndex < 0)
    return false;
  // Layers are in topological order, so one pass up to LayerIndex decides.
  std::vector<char> NonNeg(size_t(LayerIndex) + 1, 0);
  for (size_t I = 0; I <= size_t(LayerIndex); ++I) {
    const Layer &L = G.Layers[I];
    auto InputsNonNeg = [&] {
      for (int In : L.Inputs)
        if (In < 0 || !NonNeg[size_t(In)])
          return false;
      return true;
    };
    switch (L.Kind) {
    case LayerKind::Relu:
      NonNeg[I] = 1;
      break;
    case LayerKind::Conv:
    case LayerKind::Fc:
      NonNeg[I] = L.Relu;
      break;
    case LayerKind::MaxPool:
    case LayerKind::AvgPool:
    case LayerKind::GlobalAvgPool:
    case LayerKind::Flatten:
    case LayerKind::Concat:
    case LayerKind::Add: // saturating: the sum of non-negative values stays so
    case LayerKind::Mul: // and their product, rounded half up
      NonNeg[I] = InputsNonNeg();
      break;
    default:
      NonNeg[I] = 0;
    }
  }
  return NonNeg[size_t(LayerIndex)];
}
