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
//   maximum as padding that never wins; elsewhere the Pad is refused.
//
// So a Pad defines no layer: its output is its input with the pads pending
// (OnnxValue::PadT..PadR), which the Conv or pooling reading it adds to its
// own. Any other reader is refused (OnnxImporter::input), as is any Pad the
// windows cannot take: a mode other than constant, a value other than 0,
// pads on the batch or channel axes, negative pads (cropping).
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
  const OnnxValue &X = activation(0, /*AcceptPad=*/true);
  const std::string Mode = attrString("mode", "constant");
  if (Mode != "constant")
    fail(fmt::format("attribute 'mode' = '{}' is not supported: only constant padding with "
                     "zeros, which the Conv or pooling after it takes as its own padding",
                     Mode));
  const size_t R = X.Dims.size();
  std::vector<int64_t> Pads;
  double Value = 0;
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
      Value = V->Type == OnnxTensor::ElemType::Float ? double(V->Floats[0]) : double(V->Ints[0]);
    }
    if (const OnnxTensor *A = optionalConstant(3)) {
      if (A->Type != OnnxTensor::ElemType::Int64 || A->Dims.size() != 1)
        fail(fmt::format("axes '{}' must be a 1-D int64 tensor", inputName(3)));
      Axes = A->Ints;
    }
    PadsWhat = fmt::format("pads '{}'", inputName(1));
  }
  if (Value != 0)
    fail(fmt::format("padding value {} is not supported: only zeros, which the Conv or pooling "
                     "after it takes as its own padding",
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
      fail(fmt::format("{} = {} is not supported: a negative pad crops, and only padding "
                       "folds into a window",
                       PadsWhat, dimsStr(Pads)));
    if (Begin[A] > OnnxMaxDim || End[A] > OnnxMaxDim)
      fail(fmt::format("{} = {}: a pad is more than {}", PadsWhat, dimsStr(Pads), OnnxMaxDim));
    bool Spatial = (R == 3 || R == 4) && A >= 2;
    if ((Begin[A] || End[A]) && !Spatial)
      fail(fmt::format("{} = {} on input {} is not supported: only the height and width of "
                       "a rank-4 input (or the length of a rank-3 one) are padded, by the Conv "
                       "or pooling after the Pad",
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
  // A Pad of a Pad adds up; the message names the last one.
  if (R == 4) {
    V.PadT += unsigned(Begin[2]), V.PadB += unsigned(End[2]);
    V.PadL += unsigned(Begin[3]), V.PadR += unsigned(End[3]);
  } else {
    V.PadL += unsigned(Begin[2]), V.PadR += unsigned(End[2]);
  }
  V.PadNode = fmt::format("node {}{} (Pad)", NodeIndex,
                          Node->name().empty() ? "" : " '" + Node->name() + "'");
  defineAlias(0, V);
}

void OnnxImporter::takePendingPads(const OnnxValue &X, Window &W, bool IsMax) const {
  if (!X.padPending())
    return;
  if (IsMax && !nonNegative(X.Layer)) {
    std::string From = X.Layer < 0 ? "the graph input"
                                   : fmt::format("'{}' ({})", G.Layers[size_t(X.Layer)].Name,
                                                 G.Layers[size_t(X.Layer)].TypeName);
    fail(fmt::format("input '{}' comes from {}, whose zeros a max pooling cannot take as its "
                     "padding (which never wins a maximum): that is exact only on "
                     "non-negative values, and the Pad's input, {}, may be negative",
                     inputName(0), X.PadNode, From));
  }
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
      NonNeg[I] = InputsNonNeg();
      break;
    default:
      NonNeg[I] = 0;
    }
  }
  return NonNeg[size_t(LayerIndex)];
}
