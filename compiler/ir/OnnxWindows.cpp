//===- OnnxWindows.cpp - Conv, pooling, GlobalAveragePool, ReduceMean -----===//
//
// The operators with a window. ONNX describes a window by kernel_shape,
// strides, pads (begin values, then end values), dilations and auto_pad;
// the layer takes kernel, stride and four pads, and the hardware has no
// dilation. Rank 3 inputs (N x C x L) are 1-D windows over a 1 x L map.
// Pooling output sizes are checked against ONNX's own rule, which differs
// from the hardware's (PyTorch's) in ceil mode. A Pad before a window adds
// to its pads (OnnxPad.cpp). A ReduceMean over the spatial axes is a global
// average pooling.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <fmt/format.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

namespace {

/// ONNX's pooling output size: floor or ceil, with no rule about windows
/// starting in the padding (PyTorch's rule, which windowOutSize applies).
int64_t onnxOutSize(int64_t In, int64_t K, int64_t S, int64_t Pads, bool Ceil) {
  int64_t Span = In + Pads - K;
  return (Ceil ? (Span + S - 1) / S : Span / S) + 1;
}

std::vector<int64_t> withSpatial(const std::vector<int64_t> &Dims, int64_t C, const Shape &Out) {
  if (Dims.size() == 3)
    return {Dims[0], C, Out.W};
  return {Dims[0], C, Out.H, Out.W};
}

} // namespace

OnnxImporter::Window OnnxImporter::window(const OnnxValue &X,
                                          const std::vector<int64_t> &KernelFromWeights,
                                          bool IsConv) {
  const size_t Rank = X.Dims.size();
  if (Rank != 3 && Rank != 4)
    fail(fmt::format("input '{}' has shape {}: only 1-D (N x C x L) and 2-D (N x C x H x W) "
                     "windows are supported{}",
                     inputName(0), dimsStr(X.Dims),
                     Rank > 4 ? "; the hardware has no 3-D convolution or pooling" : ""));
  const size_t SR = Rank - 2;
  const char *What = IsConv ? "convolution" : "pooling";
  std::vector<int64_t> K = attrInts("kernel_shape", KernelFromWeights);
  if (K.size() != SR)
    fail(K.empty() ? std::string("attribute 'kernel_shape' is required")
                   : fmt::format("attribute 'kernel_shape' = {} needs {} values for an input of "
                                 "rank {}",
                                 dimsStr(K), SR, Rank));
  if (!KernelFromWeights.empty() && K != KernelFromWeights)
    fail(fmt::format("attribute 'kernel_shape' = {} differs from the weights' kernel {}",
                     dimsStr(K), dimsStr(KernelFromWeights)));
  std::vector<int64_t> S = attrInts("strides", std::vector<int64_t>(SR, 1));
  std::vector<int64_t> D = attrInts("dilations", std::vector<int64_t>(SR, 1));
  std::vector<int64_t> P = attrInts("pads", std::vector<int64_t>(2 * SR, 0));
  if (S.size() != SR)
    fail(fmt::format("attribute 'strides' = {} needs {} values", dimsStr(S), SR));
  if (D.size() != SR)
    fail(fmt::format("attribute 'dilations' = {} needs {} values", dimsStr(D), SR));
  if (P.size() != 2 * SR)
    fail(fmt::format("attribute 'pads' = {} needs {} values", dimsStr(P), 2 * SR));
  for (int64_t V : D)
    if (V != 1)
      fail(fmt::format("attribute 'dilations' = {} is not supported: the hardware has no "
                       "dilated {} (dilations must be 1)",
                       dimsStr(D), What));
  for (size_t I = 0; I < SR; ++I) {
    if (K[I] < 1 || K[I] > OnnxMaxDim)
      fail(fmt::format("attribute 'kernel_shape' = {} must be in 1..{}", dimsStr(K), OnnxMaxDim));
    if (S[I] < 1 || S[I] > OnnxMaxDim)
      fail(fmt::format("attribute 'strides' = {} must be in 1..{}", dimsStr(S), OnnxMaxDim));
  }
  for (int64_t V : P)
    if (V < 0 || V > OnnxMaxDim)
      fail(fmt::format("attribute 'pads' = {} must be in 0..{}", dimsStr(P), OnnxMaxDim));

  const std::string AutoPad = attrString("auto_pad", "NOTSET");
  if (AutoPad == "VALID") {
    P.assign(2 * SR, 0);
  } else if (AutoPad == "SAME_UPPER" || AutoPad == "SAME_LOWER") {
    // Output ceil(in / stride); the extra pad goes to the end (UPPER) or to
    // the beginning (LOWER).
    for (size_t I = 0; I < SR; ++I) {
      int64_t In = X.Dims[2 + I], Out = (In + S[I] - 1) / S[I];
      int64_t Total = std::max<int64_t>(0, (Out - 1) * S[I] + K[I] - In);
      int64_t Small = Total / 2, Large = Total - Small;
      P[I] = AutoPad == "SAME_UPPER" ? Small : Large;
      P[SR + I] = AutoPad == "SAME_UPPER" ? Large : Small;
    }
  } else if (AutoPad != "NOTSET") {
    fail(fmt::format("attribute 'auto_pad' = '{}' is not supported (NOTSET, VALID, SAME_UPPER, "
                     "SAME_LOWER)",
                     AutoPad));
  }

  Window W;
  if (SR == 1) {
    W.KW = unsigned(K[0]);
    W.SW = unsigned(S[0]);
    W.PadL = unsigned(P[0]);
    W.PadR = unsigned(P[1]);
  } else {
    W.KH = unsigned(K[0]);
    W.KW = unsigned(K[1]);
    W.SH = unsigned(S[0]);
    W.SW = unsigned(S[1]);
    W.PadT = unsigned(P[0]);
    W.PadL = unsigned(P[1]);
    W.PadB = unsigned(P[2]);
    W.PadR = unsigned(P[3]);
  }
  return W;
}

void OnnxImporter::checkWindowFits(const Window &W, const Shape &In, bool IsPool) const {
  uint64_t PH = uint64_t(In.H) + W.PadT + W.PadB, PW = uint64_t(In.W) + W.PadL + W.PadR;
  if (W.KH > PH || W.KW > PW)
    fail(fmt::format("kernel {}x{} is larger than its padded input {}x{}", W.KH, W.KW, PH, PW));
  // ONNX allows pooling pads up to the kernel (the YAML front end keeps
  // PyTorch's stricter pad <= kernel / 2). A pad of the kernel's size or
  // more would make a window of padding alone, whose maximum is undefined.
  unsigned PadH = std::max(W.PadT, W.PadB), PadW = std::max(W.PadL, W.PadR);
  if (IsPool && (PadH >= W.KH || PadW >= W.KW))
    fail(fmt::format("pad {} is not smaller than the kernel {}x{}: a window would hold padding "
                     "only",
                     PadH >= W.KH ? PadH : PadW, W.KH, W.KW));
}

void OnnxImporter::importConv() {
  checkAttributes({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  if (inputCount() < 2)
    fail("a convolution needs inputs X and W");
  const OnnxValue &X = activation(0, /*AcceptPad=*/true);
  const OnnxTensor &W = constant(1);
  const OnnxTensor *B = inputCount() > 2 ? &constant(2) : nullptr;
  if (W.Type != OnnxTensor::ElemType::Float || (B && B->Type != OnnxTensor::ElemType::Float))
    fail("weights and bias must be float32");
  if (W.Dims.size() != X.Dims.size())
    fail(fmt::format("weights '{}' have shape {}, which does not match the rank of the input {}",
                     inputName(1), dimsStr(W.Dims), dimsStr(X.Dims)));
  const int64_t Group = attrInt("group", 1);
  const int64_t C = X.Dims[1], M = W.Dims[0];
  if (Group < 1 || C % Group != 0 || M % Group != 0)
    fail(fmt::format("attribute 'group' = {} must divide the input channels {} and the output "
                     "channels {}",
                     Group, C, M));
  if (W.Dims[1] != C / Group)
    fail(fmt::format("weights '{}' have shape {}; with {} input channels in {} group(s) axis 1 "
                     "must be {}",
                     inputName(1), dimsStr(W.Dims), C, Group, C / Group));
  if (B && (B->Dims.size() != 1 || B->Dims[0] != M))
    fail(fmt::format("bias '{}' has shape {}, expected [{}]", inputName(2), dimsStr(B->Dims), M));
  Window Wn = window(X, {W.Dims.begin() + 2, W.Dims.end()}, /*IsConv=*/true);
  takePendingPads(X, Wn);

  Layer L;
  L.Kind = LayerKind::Conv;
  L.TypeName = "conv";
  L.Inputs = {X.Layer};
  L.In = shapeOf(X.Layer);
  checkWindowFits(Wn, L.In, /*IsPool=*/false);
  L.KH = Wn.KH, L.KW = Wn.KW, L.SH = Wn.SH, L.SW = Wn.SW;
  L.PadT = Wn.PadT, L.PadB = Wn.PadB, L.PadL = Wn.PadL, L.PadR = Wn.PadR;
  L.Groups = unsigned(Group);
  L.Out = {uint32_t(M), windowOutSize(L.In.H, L.KH, L.SH, L.PadT, L.PadB, false),
           windowOutSize(L.In.W, L.KW, L.SW, L.PadL, L.PadR, false)};
  L.Weights = W.Floats;
  L.HasBias = B != nullptr;
  L.Bias = B ? B->Floats : std::vector<float>(size_t(M), 0.0f);
  // Channels pending on X (a shuffle or slice before) go into the weights.
  std::vector<uint32_t> OutMap;
  if (X.chansPending() && !convWeightsFollow(X, L, OutMap))
    fail(fmt::format("input '{}' has its channels reordered, which only a conv with group 1 or "
                     "a depthwise one over a permutation takes into its weights",
                     inputName(0)));
  Shape Out = L.Out;
  int Id = addLayer(std::move(L));
  defineActivation(0, Id, withSpatial(X.Dims, M, Out));
  Values[Node->output(0)].ChanMap = std::move(OutMap);
}

void OnnxImporter::importPool(bool IsMax) {
  if (IsMax) {
    checkAttributes(
        {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
    onlyFirstOutput("the indices of the maxima; the hardware returns the values only");
  } else {
    checkAttributes(
        {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
  }
  const OnnxValue &X = activation(0, /*AcceptPad=*/true);
  Window Wn = window(X, {}, /*IsConv=*/false);
  if (!IsMax) {
    // The operator's own padding must count in the divisor; a Pad's zeros
    // before it are input, so they count either way.
    bool Padded = Wn.PadT || Wn.PadB || Wn.PadL || Wn.PadR;
    if (Padded && attrInt("count_include_pad", 0) == 0)
      fail(fmt::format("attribute 'count_include_pad' = 0 with pads [{}, {}, {}, {}] is not "
                       "supported: the hardware divides every window by its full size, padding "
                       "included (count_include_pad = 1)",
                       Wn.PadT, Wn.PadL, Wn.PadB, Wn.PadR));
  }
  takePendingPads(X, Wn);
  const Shape In = shapeOf(X.Layer);
  checkWindowFits(Wn, In, /*IsPool=*/true);
  bool Ceil = attrInt("ceil_mode", 0) != 0;
  auto Size = [&](bool C) {
    return Shape{In.C, windowOutSize(In.H, Wn.KH, Wn.SH, Wn.PadT, Wn.PadB, C),
                 windowOutSize(In.W, Wn.KW, Wn.SW, Wn.PadL, Wn.PadR, C)};
  };
  if (IsMax && Ceil) {
    Shape Onnx{In.C, uint32_t(onnxOutSize(In.H, Wn.KH, Wn.SH, Wn.PadT + Wn.PadB, true)),
               uint32_t(onnxOutSize(In.W, Wn.KW, Wn.SW, Wn.PadL + Wn.PadR, true))};
    if (!(Onnx == Size(true)))
      fail(fmt::format("attribute 'ceil_mode' = 1: ONNX's output here is {}x{}, the hardware's "
                       "(PyTorch's) rule gives {}x{}, dropping a last window that starts in "
                       "the padding",
                       Onnx.H, Onnx.W, Size(true).H, Size(true).W));
  }
  if (!IsMax) {
    // With ceil_mode a window may hang over the edge and divide by fewer
    // positions; when no window does, ceil_mode changes nothing.
    if (Ceil && !(Size(true) == Size(false)))
      fail("attribute 'ceil_mode' = 1 is not supported here: windows hanging over the edge would "
           "divide by fewer positions, and the hardware divides every window by its full size");
    Ceil = false;
    if (uint64_t(Wn.KH) * Wn.KW > MaxAvgWindow)
      fail(fmt::format("an average over {}x{} positions is more than the supported {}", Wn.KH,
                       Wn.KW, MaxAvgWindow));
  }
  Layer L;
  L.Kind = IsMax ? LayerKind::MaxPool : LayerKind::AvgPool;
  L.TypeName = IsMax ? "maxpool" : "avgpool";
  L.Inputs = {X.Layer};
  L.In = In;
  L.KH = Wn.KH, L.KW = Wn.KW, L.SH = Wn.SH, L.SW = Wn.SW;
  L.PadT = Wn.PadT, L.PadB = Wn.PadB, L.PadL = Wn.PadL, L.PadR = Wn.PadR;
  L.CeilMode = Ceil;
  L.Out = Size(Ceil);
  Shape Out = L.Out;
  int Id = addLayer(std::move(L));
  defineActivation(0, Id, withSpatial(X.Dims, X.Dims[1], Out));
}

int OnnxImporter::addGlobalAvgPool(const OnnxValue &X) {
  if (X.Dims.size() < 3)
    fail(fmt::format("input '{}' has shape {}; a global average needs N x C x spatial axes",
                     inputName(0), dimsStr(X.Dims)));
  Layer L;
  L.Kind = LayerKind::GlobalAvgPool;
  L.TypeName = "global_avgpool";
  L.Inputs = {X.Layer};
  L.In = shapeOf(X.Layer);
  if (uint64_t(L.In.H) * L.In.W > MaxAvgWindow)
    fail(fmt::format("an average over {}x{} positions is more than the supported {}", L.In.H,
                     L.In.W, MaxAvgWindow));
  L.Out = {L.In.C, 1, 1};
  return addLayer(std::move(L));
}

void OnnxImporter::importGlobalAveragePool() {
  checkAttributes({});
  const OnnxValue &X = activation(0);
  int Id = addGlobalAvgPool(X);
  std::vector<int64_t> Dims(X.Dims.size(), 1);
  Dims[0] = X.Dims[0];
  Dims[1] = X.Dims[1];
  defineActivation(0, Id, std::move(Dims));
}

void OnnxImporter::importReduceMean() {
  // From opset 18 the axes are an input, and an empty list reduces nothing
  // when noop_with_empty_axes is set (else everything).
  checkAttributes({"axes", "keepdims", "noop_with_empty_axes"});
  const OnnxValue &X = activation(0);
  const int64_t R = int64_t(X.Dims.size());
  std::vector<int64_t> Axes;
  if (Opset < 18) {
    Axes = attrInts("axes", {});
  } else if (attr("axes")) {
    fail(
        fmt::format("attribute 'axes' is not an attribute in opset {} (an input since 18)", Opset));
  } else if (const OnnxTensor *A = optionalConstant(1)) {
    if (A->Type != OnnxTensor::ElemType::Int64 || A->Dims.size() != 1)
      fail(fmt::format("axes '{}' must be a 1-D int64 tensor", inputName(1)));
    Axes = A->Ints;
  }
  if (Axes.empty() && Opset >= 18 && attrInt("noop_with_empty_axes", 0) != 0) {
    defineAlias(0, X);
    return;
  }
  std::vector<bool> Reduced(size_t(R), Axes.empty());
  for (int64_t A : Axes) {
    int64_t N = A < 0 ? A + R : A;
    if (N < 0 || N >= R)
      fail(fmt::format("axis {} is outside the input's rank {}", A, R));
    Reduced[size_t(N)] = true;
  }
  bool Spatial = R >= 3;
  for (int64_t A = 0; A < R; ++A)
    Spatial &= Reduced[size_t(A)] == (A >= 2);
  if (!Spatial)
    fail(fmt::format("axes {} on input {} are not supported: only a mean over all the spatial "
                     "axes (2 and up), which is a global average pooling",
                     Axes.empty() ? std::string("(all)") : dimsStr(Axes), dimsStr(X.Dims)));
  int Id = addGlobalAvgPool(X);
  // keepdims = 0 gives [N, C]: the same frame (C x 1 x 1) as a flatten of
  // GlobalAveragePool's [N, C, 1, 1], so no layer either way.
  std::vector<int64_t> Dims = {X.Dims[0], X.Dims[1]};
  if (attrInt("keepdims", 1) != 0)
    Dims.resize(size_t(R), 1);
  defineActivation(0, Id, std::move(Dims));
}
