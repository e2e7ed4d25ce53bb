//===- OnnxShuffle.cpp - Channel shuffles, Slice and Split of channels ----===//
//
// The accelerator cannot move channels by itself: every layer writes its
// output channels in order into one tensor. ShuffleNet v2 moves them twice
// per block: channel_shuffle (Reshape [N, C, H, W] to [N, g, C/g, H, W],
// Transpose perm [0, 2, 1, 3, 4], Reshape back) and x.chunk(2, dim=1)
// (Slice or Split on axis 1). Both only select and reorder channels, so
// neither is a layer here: the value keeps the layer it comes from and a map
// from its logical channels to that layer's (OnnxValue::ChanMap), composed
// through any number of shuffles and slices. What reads it decides the cost:
//
// * a Conv with group 1 takes the map into its weights: logical input
//   channel i's weights go to the physical channel map[i], the others are
//   zero. Free for a permutation; for a selection the conv reads all the
//   physical channels (more MACs, but fewer than a selection layer first);
// * a depthwise Conv over a permutation computes the physical channels with
//   its per-channel weights and bias permuted, and its output keeps the map;
// * any other reader (Concat, Relu, pooling, the graph output, ...) gets the
//   value materialized once: a 1x1 conv whose weights are the 0/1 matrix of
//   the map, grouped where the map allows, no bias. Weight 1.0 and the
//   zeros are exact in every weight format and the accumulator holds the one
//   product exactly, so the layer's output is its input's values, bit for
//   bit when its format is the input's (docs/fixed-point.md).
//
// A value in the middle of a shuffle (5-D, ChanFactored) may only be read by
// the Transpose and the Reshape back; Slice and Split act on the channel
// axis only. Everything else is refused with the reason.
//
//===----------------------------------------------------------------------===//

#include "ChannelMoves.h"
#include "OnnxImporter.h"

#include "llvm/ADT/STLExtras.h"
#include <fmt/format.h>
#include <numeric>

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

namespace {

bool isIdentity(const std::vector<uint32_t> &Map, uint32_t PhysC) {
  if (Map.size() != PhysC)
    return false;
  for (size_t I = 0; I < Map.size(); ++I)
    if (Map[I] != I)
      return false;
  return true;
}

} // namespace

//===-- Readers: what may read channels pending --------------------------===//

bool OnnxImporter::convTakesChannels(const onnx::NodeProto &N, const OnnxValue &X) const {
  int64_t Group = 1;
  for (const onnx::AttributeProto &A : N.attribute())
    if (A.name() == "group" && A.type() == onnx::AttributeProto::INT)
      Group = A.i();
  if (Group == 1)
    return true;
  // A depthwise conv (one output per channel) over a permutation.
  const uint32_t PhysC = shapeOf(X.Layer).C;
  if (N.input_size() < 2 || !isPermutation(X.ChanMap, PhysC) || Group != int64_t(PhysC))
    return false;
  auto W = Values.find(N.input(1));
  return W != Values.end() && W->second.IsConst && !W->second.Dims.empty() &&
         W->second.Dims[0] == Group;
}

bool OnnxImporter::readersTakeChannels(const std::string &Name) const {
  // Those that reorder (a shuffle, Slice, Split, Concat) or take the order
  // into weights (a Conv); a depthwise conv may not, which costs a layer at
  // worst, as in any other case this misjudges.
  static const char *const Takers[] = {"Reshape", "Slice", "Split", "Concat", "Conv"};
  if (Name == OutputName)
    return false;
  for (int I = NodeIndex + 1; I < GP.node_size(); ++I) {
    if (!Live[size_t(I)])
      continue;
    const onnx::NodeProto &N = GP.node(I);
    for (int J = 0; J < N.input_size(); ++J)
      if (N.input(J) == Name && (J != 0 || !llvm::is_contained(Takers, N.op_type())))
        return false;
  }
  return true;
}

void OnnxImporter::prepareInputs(const onnx::NodeProto &N) {
  const std::string &Op = N.op_type();
  for (int J = 0; J < N.input_size(); ++J) {
    auto It = Values.find(N.input(J));
    if (It == Values.end() || It->second.IsConst)
      continue;
    const OnnxValue &V = It->second;
    checkChannelsLastReader(Op, N.input(J), V, J);
    static const char *const GeluNext[] = {"", "Erf", "Add", "Mul", "Mul"};
    if (V.GeluStep && Op != GeluNext[V.GeluStep])
      fail(fmt::format("input '{}' is step {} of a GELU, x * 0.5 * (1 + erf(x / sqrt 2)); only "
                       "the chain's next node ({}) may read it",
                       N.input(J), V.GeluStep, GeluNext[V.GeluStep]));
    const bool Passes = J == 0 && (Op == "Identity" || Op == "Dropout" || Op == "Shape");
    if (V.ChanFactored && !(Passes || (J == 0 && (Op == "Transpose" || Op == "Reshape"))))
      fail(fmt::format("input '{}' {} is the middle of a channel shuffle (a Reshape that "
                       "splits the channels); only a Transpose of the two channel axes and "
                       "the Reshape back to [N, C, H, W] may read it",
                       N.input(J), dimsStr(V.Dims)));
    if (!V.chansPending())
      continue;
    bool Takes =
        Passes ||
        (J == 0 && (Op == "Slice" || Op == "Split" || Op == "Transpose" || Op == "Reshape"));
    Takes |= J == 0 && Op == "Conv" && convTakesChannels(N, V);
    // A batchnorm is per channel: it permutes its statistics (OnnxOps.cpp).
    Takes |= J == 0 && Op == "BatchNormalization" && isPermutation(V.ChanMap, shapeOf(V.Layer).C);
    // A concat takes a permutation of a whole layer's channels: the layer
    // writes into its part of the concat as it is, and the concat's own
    // channels are left pending.
    const bool Concat = Op == "Concat" && readersTakeChannels(N.output(0));
    Takes |= Concat && isPermutation(V.ChanMap, shapeOf(V.Layer).C);
    if (!Takes)
      materialize(N.input(J));
  }
}

void OnnxImporter::materializeOutputs(const onnx::NodeProto &N) {
  for (const std::string &O : N.output()) {
    if (O != OutputName)
      continue;
    auto It = Values.find(O);
    if (It == Values.end() || It->second.IsConst)
      continue;
    if (It->second.ChanFactored)
      fail(fmt::format("output '{}' {} is the middle of a channel shuffle; the graph output "
                       "must be [N, C, H, W]",
                       O, dimsStr(It->second.Dims)));
    if (It->second.chansPending())
      materialize(O);
  }
}

void OnnxImporter::materialize(const std::string &Name) {
  OnnxValue V = Values.at(Name);
  assert(V.chansPending() && !V.ChanFactored && "a 4-D value with channels pending");
  // The layer writes the channels in their logical order: nothing is left
  // pending. (Written in their input's order, with the logical order left
  // pending as a permutation, the 0/1 matrix is block diagonal more often,
  // but torchvision's ShuffleNet v2 ran 1,284,311 cycles that way against
  // 1,277,632: docs/onnx.md, "Exporting the YAML models".)
  V.Layer = addLayer(selectLayer(V.Layer, shapeOf(V.Layer), V.ChanMap), "_select");
  V.ChanMap.clear();
  Values[Name] = std::move(V);
}

void OnnxImporter::splitConcatsByReader() {
  // One sweep (ConcatSplit.cpp says why), then the halves passed on
  // (PassThrough.cpp).
  detail::splitConcatsByReader(G);
  detail::passHalvesThrough(G);
  for (const Layer &L : G.Layers)
    LayerNames.insert(L.Name);
}

OnnxValue OnnxImporter::selectChannels(const OnnxValue &X, const std::vector<uint32_t> &Sel,
                                       std::vector<int64_t> Dims) const {
  OnnxValue V = X;
  V.ChanFactored = false;
  V.Dims = std::move(Dims);
  V.ChanMap.clear();
  for (uint32_t S : Sel)
    V.ChanMap.push_back(X.chansPending() ? X.ChanMap[S] : S);
  if (isIdentity(V.ChanMap, shapeOf(X.Layer).C))
    V.ChanMap.clear();
  return V;
}

bool OnnxImporter::convWeightsFollow(const OnnxValue &X, Layer &L,
                                     std::vector<uint32_t> &OutMap) const {
  const std::vector<uint32_t> &Map = X.ChanMap;
  const Shape Phys = L.In; // L's weights are for the logical channels
  const uint32_t C = uint32_t(Map.size());
  if (L.Groups == 1) {
    L.In.C = C;
    readThrough(L, L.input(), Phys, Map);
    return true;
  }
  if (L.Groups == C && L.Out.C == C && isPermutation(Map, Phys.C)) {
    permuteChannels(L.Weights, Map, size_t(L.KH) * L.KW);
    permuteChannels(L.Bias, Map);
    OutMap = Map;
    return true;
  }
  return false;
}

//===-- Reshape, Transpose: the channel shuffle --------------------------===//

bool OnnxImporter::reshapeChannels(const OnnxValue &X, const std::vector<int64_t> &Dims) {
  const std::vector<int64_t> &D = X.Dims;
  if (X.ChanFactored) {
    // Back to [N, C, H, W]: logical channel a * Dims[2] + b stays in place.
    if (Dims.size() == 4 && Dims[0] == D[0] && Dims[1] == D[1] * D[2] && Dims[2] == D[3] &&
        Dims[3] == D[4]) {
      OnnxValue V = selectChannels(X, {}, Dims);
      V.ChanMap = X.ChanMap;
      if (isIdentity(V.ChanMap, shapeOf(X.Layer).C))
        V.ChanMap.clear();
      defineAlias(0, V);
      return true;
    }
    fail(fmt::format("a reshape of {} (the middle of a channel shuffle) to {} is not supported: "
                     "only back to [N, C, H, W] with the channel axes merged",
                     dimsStr(D), dimsStr(Dims)));
  }
  // [N, C, H, W] -> [N, G, C / G, H, W]. One that keeps the frame's shape
  // ([N, C, 1, 1, W] from [N, C, 1, W]) is an alias like any such reshape.
  if (D.size() != 4 || Dims.size() != 5 || Dims[0] != D[0] || Dims[1] * Dims[2] != D[1] ||
      Dims[3] != D[2] || Dims[4] != D[3] || frameShape(Dims) == frameShape(D))
    return false;
  OnnxValue V = X;
  V.Dims = Dims;
  V.ChanFactored = true;
  defineAlias(0, V);
  return true;
}

void OnnxImporter::importTranspose() {
  checkAttributes({"perm"});
  const OnnxValue &X = activation(0);
  const int64_t R = int64_t(X.Dims.size());
  std::vector<int64_t> Rev(static_cast<size_t>(R));
  for (int64_t A = 0; A < R; ++A)
    Rev[size_t(A)] = R - 1 - A;
  const std::vector<int64_t> Perm = attrInts("perm", Rev);
  std::vector<int64_t> Id(static_cast<size_t>(R));
  std::iota(Id.begin(), Id.end(), 0);
  if (Perm == Id) {
    defineAlias(0, X);
    return;
  }
  if (transposeChannelsLast(X, Perm))
    return;
  if (!X.ChanFactored || Perm != std::vector<int64_t>{0, 2, 1, 3, 4})
    fail(fmt::format("perm {} on input {} is not supported: the accelerator moves no data "
                     "between axes; only a channel shuffle's transpose (perm [0, 2, 1, 3, 4] "
                     "after a Reshape that splits the channels) is",
                     dimsStr(Perm), dimsStr(X.Dims)));
  // [N, A, B, H, W] -> [N, B, A, H, W]: new logical b * A + a is old a * B + b.
  const int64_t A = X.Dims[1], B = X.Dims[2];
  std::vector<uint32_t> Sel(size_t(A * B));
  for (int64_t Ai = 0; Ai < A; ++Ai)
    for (int64_t Bi = 0; Bi < B; ++Bi)
      Sel[size_t(Bi * A + Ai)] = uint32_t(Ai * B + Bi);
  OnnxValue V = selectChannels(X, Sel, {X.Dims[0], B, A, X.Dims[3], X.Dims[4]});
  V.ChanFactored = true;
  defineAlias(0, V);
}

//===-- Slice, Split: ranges of channels ---------------------------------===//

void OnnxImporter::importSlice() {
  // Before opset 10 starts, ends and axes are attributes; from 10 inputs,
  // with steps.
  const bool AttrForm = Opset < 10;
  if (AttrForm)
    checkAttributes({"axes", "ends", "starts"});
  else
    checkAttributes({});
  const OnnxValue &X = activation(0);
  const int64_t R = int64_t(X.Dims.size());
  auto Ints = [&](size_t I, const char *What) -> std::vector<int64_t> {
    const OnnxTensor &T = constant(I);
    if (T.Type != OnnxTensor::ElemType::Int64 || T.Dims.size() != 1)
      fail(fmt::format("{} '{}' must be a 1-D integer tensor, got shape {}", What, inputName(I),
                       dimsStr(T.Dims)));
    return T.Ints;
  };
  std::vector<int64_t> Starts, Ends, Axes, Steps;
  if (AttrForm) {
    if (!attr("starts") || !attr("ends"))
      fail("attributes 'starts' and 'ends' are required");
    Starts = attrInts("starts", {});
    Ends = attrInts("ends", {});
    Axes = attrInts("axes", {});
  } else {
    if (inputCount() < 3)
      fail("needs inputs data, starts and ends");
    Starts = Ints(1, "starts");
    Ends = Ints(2, "ends");
    if (!inputName(3).empty())
      Axes = Ints(3, "axes");
    if (!inputName(4).empty())
      Steps = Ints(4, "steps");
  }
  if (Axes.empty())
    for (size_t A = 0; A < Starts.size(); ++A)
      Axes.push_back(int64_t(A));
  if (Steps.empty())
    Steps.assign(Starts.size(), 1);
  if (Ends.size() != Starts.size() || Axes.size() != Starts.size() || Steps.size() != Starts.size())
    fail(fmt::format("starts {}, ends {}, axes {} and steps {} differ in length", dimsStr(Starts),
                     dimsStr(Ends), dimsStr(Axes), dimsStr(Steps)));
  std::vector<int64_t> Dims = X.Dims;
  int64_t Begin = 0, End = R >= 2 ? X.Dims[1] : 0;
  std::vector<bool> Seen(size_t(R), false);
  for (size_t I = 0; I < Axes.size(); ++I) {
    int64_t A = Axes[I] < 0 ? Axes[I] + R : Axes[I];
    if (A < 0 || A >= R || Seen[size_t(A)])
      fail(fmt::format("axes {} name an axis twice or one outside the input's rank {}",
                       dimsStr(Axes), R));
    Seen[size_t(A)] = true;
    const int64_t Dim = X.Dims[size_t(A)];
    auto Clamp = [&](int64_t V) { return std::clamp(V < 0 ? V + Dim : V, int64_t(0), Dim); };
    const int64_t S = Clamp(Starts[I]), E = Clamp(Ends[I]);
    if (Steps[I] != 1)
      fail(fmt::format("step {} on axis {} is not supported: only steps of 1 (a range of "
                       "channels)",
                       Steps[I], Axes[I]));
    if (A != 1 && !(S == 0 && E == Dim))
      fail(fmt::format("a slice [{}, {}) of axis {} of input {} is not supported: only the "
                       "channel axis (1) is sliced, every other axis kept whole",
                       Starts[I], Ends[I], Axes[I], dimsStr(X.Dims)));
    if (A == 1) {
      Begin = S, End = E;
      if (End <= Begin)
        fail(
            fmt::format("the slice [{}, {}) of the {} channels is empty", Starts[I], Ends[I], Dim));
    }
  }
  if (R < 2)
    fail(fmt::format("input {} has no channel axis to slice", dimsStr(X.Dims)));
  std::vector<uint32_t> Sel;
  for (int64_t C = Begin; C < End; ++C)
    Sel.push_back(uint32_t(C));
  Dims[1] = End - Begin;
  defineAlias(0, selectChannels(X, Sel, std::move(Dims)));
}

void OnnxImporter::importSplit() {
  // The sizes: attribute 'split' before opset 13, an input from 13; opset
  // 18 adds 'num_outputs' for equal parts (the last one smaller).
  if (Opset < 13)
    checkAttributes({"axis", "split"});
  else if (Opset < 18)
    checkAttributes({"axis"});
  else
    checkAttributes({"axis", "num_outputs"});
  const OnnxValue &X = activation(0);
  const int64_t R = int64_t(X.Dims.size());
  int64_t Axis = attrInt("axis", 0);
  if (Axis < 0)
    Axis += R;
  if (R < 2 || Axis != 1)
    fail(fmt::format("attribute 'axis' = {} on input {} is not supported: only a split of the "
                     "channels (axis 1)",
                     attrInt("axis", 0), dimsStr(X.Dims)));
  const int64_t C = X.Dims[1];
  const int64_t N = Node->output_size();
  std::vector<int64_t> Sizes;
  if (Opset < 13) {
    Sizes = attrInts("split", {});
  } else if (!inputName(1).empty()) {
    const OnnxTensor &T = constant(1);
    if (T.Type != OnnxTensor::ElemType::Int64 || T.Dims.size() != 1)
      fail(fmt::format("split '{}' must be a 1-D integer tensor, got shape {}", inputName(1),
                       dimsStr(T.Dims)));
    Sizes = T.Ints;
  }
  if (Sizes.empty()) {
    const int64_t Parts = attrInt("num_outputs", N);
    if (Parts != N)
      fail(fmt::format("attribute 'num_outputs' = {}, but the node has {} outputs", Parts, N));
    if (Opset < 18 && C % N != 0)
      fail(fmt::format("{} channels do not split into {} equal parts", C, N));
    const int64_t Each = (C + N - 1) / N;
    for (int64_t I = 0; I < N; ++I)
      Sizes.push_back(std::min(Each, C - I * Each));
  }
  int64_t Sum = 0;
  for (int64_t S : Sizes)
    Sum += S > 0 ? S : 0;
  if (int64_t(Sizes.size()) != N || Sum != C ||
      llvm::any_of(Sizes, [](int64_t S) { return S < 1; }))
    fail(fmt::format("sizes {} do not split {} channels into {} non-empty outputs", dimsStr(Sizes),
                     C, N));
  int64_t Begin = 0;
  for (int64_t I = 0; I < N; ++I) {
    std::vector<uint32_t> Sel;
    for (int64_t Ch = Begin; Ch < Begin + Sizes[size_t(I)]; ++Ch)
      Sel.push_back(uint32_t(Ch));
    std::vector<int64_t> Dims = X.Dims;
    Dims[1] = Sizes[size_t(I)];
    Begin += Sizes[size_t(I)];
    if (!Node->output(int(I)).empty())
      defineAlias(size_t(I), selectChannels(X, Sel, std::move(Dims)));
  }
}
