//===- OnnxPasses.cpp - Importer passes over the whole graph --------------===//
//
// Decisions that need every node imported first, because they depend on how
// often a layer is read:
//
// * a per-channel constant added after a conv or fc that feeds nothing else
//   joins its bias (MatMul + Add is one fc, as the YAML writes it), and one
//   it is multiplied or divided by scales its weights and bias;
// * a BatchNormalization that canonicalize() will not be able to fold
//   becomes the depthwise 1x1 conv it is;
// * a Concat whose inputs begin with all the inputs of an earlier Concat
//   takes that concat as its first input instead (DenseNet's blocks);
// * a graph with nothing for the accelerator to do gets a copy layer;
// * the output's shape is checked against the graph's declaration.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

namespace {

/// How often each layer's output is read, as canonicalize() counts: inputs,
/// residuals, and once more for the last layer, which the host reads.
std::vector<unsigned> layerUses(const Graph &G) {
  std::vector<unsigned> Uses(G.Layers.size(), 0);
  for (const Layer &L : G.Layers)
    for (int I : L.Inputs)
      if (I >= 0)
        ++Uses[size_t(I)];
  if (!Uses.empty())
    ++Uses.back();
  return Uses;
}

} // namespace

void OnnxImporter::foldAffineConsts() {
  std::vector<unsigned> Uses = layerUses(G);
  const size_t N = G.Layers.size();
  std::vector<int> Replace(N, -2); // -2: kept
  auto Resolve = [&](int I) {
    while (I >= 0 && Replace[size_t(I)] != -2)
      I = Replace[size_t(I)];
    return I;
  };
  for (size_t I : AffineConsts) {
    Layer &A = G.Layers[I];
    // A chain of constant operations folds into one conv: the input may
    // itself be one folded already.
    int Direct = A.input(), P = Resolve(Direct);
    if (P < 0 || Uses[size_t(Direct)] != 1)
      continue;
    Layer &C = G.Layers[size_t(P)];
    if ((C.Kind != LayerKind::Conv && C.Kind != LayerKind::Fc) || C.Relu || C.DynamicWeights)
      continue;
    // The output layer may only be replaced by one that becomes the last.
    bool Last = true;
    for (size_t K = size_t(P) + 1; K < I; ++K)
      Last &= Replace[K] != -2;
    if (I + 1 == N && !Last)
      continue;
    // y = a (W x + c) + b: each output channel's weights times a, its bias
    // a c + b (a = 1 for an add: the same bits as adding to the bias).
    C.Bias.resize(C.Out.C, 0.0f);
    const size_t PerOut = C.Weights.size() / C.Out.C;
    for (uint32_t O = 0; O < C.Out.C; ++O) {
      const float Scale = A.Weights[O];
      if (Scale != 1.0f)
        for (size_t K = 0; K < PerOut; ++K)
          C.Weights[O * PerOut + K] *= Scale;
      C.Bias[O] = C.Bias[O] * Scale + A.Bias[O];
    }
    C.HasBias = true;
    Replace[I] = P;
  }
  std::vector<int> NewIndex(N, -1);
  std::vector<Layer> Kept;
  for (size_t I = 0; I < N; ++I)
    if (Replace[I] == -2) {
      NewIndex[I] = int(Kept.size());
      Kept.push_back(std::move(G.Layers[I]));
    }
  for (Layer &L : Kept)
    for (int &In : L.Inputs) {
      In = Resolve(In);
      In = In < 0 ? -1 : NewIndex[size_t(In)];
    }
  G.Layers = std::move(Kept);
}

void OnnxImporter::lowerUnfoldableBatchNorms() {
  // canonicalize() folds a batchnorm into the conv or fc before it when that
  // layer feeds nothing else and has no relu. Any other batchnorm is a
  // per-channel scale and shift: a depthwise 1x1 conv computes exactly that.
  std::vector<unsigned> Uses = layerUses(G);
  for (Layer &BN : G.Layers) {
    if (BN.Kind != LayerKind::BatchNorm)
      continue;
    int P = BN.input();
    if (P >= 0) {
      const Layer &C = G.Layers[size_t(P)];
      if ((C.Kind == LayerKind::Conv || C.Kind == LayerKind::Fc) && Uses[size_t(P)] == 1 && !C.Relu)
        continue;
    }
    const uint32_t Ch = BN.In.C;
    BN.Kind = LayerKind::Conv;
    BN.Groups = Ch;
    BN.KH = BN.KW = BN.SH = BN.SW = 1;
    BN.Weights.assign(Ch, 0.0f);
    BN.Bias.assign(Ch, 0.0f);
    for (uint32_t O = 0; O < Ch; ++O) {
      // In double, as canonicalize() folds.
      double S = double(BN.Gamma[O]) / std::sqrt(double(BN.Var[O]) + double(BN.Eps));
      BN.Weights[O] = float(S);
      BN.Bias[O] = float(double(BN.Beta[O]) - double(BN.Mean[O]) * S);
    }
    BN.HasBias = true;
    BN.Gamma.clear();
    BN.Beta.clear();
    BN.Mean.clear();
    BN.Var.clear();
  }
}

void OnnxImporter::nestConcats() {
  // The compiler makes a concat a view: its inputs write their outputs into
  // its tensor, so a tensor can go into one concat only. DenseNet's block
  // concatenates [x, f1, ..., fk] for every k, each f in every later concat;
  // as [previous concat, fk] each goes into one, and the concats nest into
  // the last one's tensor. Concatenation is associative, so the values are
  // the same; only the copies go.
  // Prefixes are compared on the inputs as imported (Flat), since an
  // earlier concat's own list may have been nested already.
  std::vector<std::vector<int>> Flat(G.Layers.size());
  std::vector<bool> InConcat(G.Layers.size(), false);
  for (size_t D = 0; D < G.Layers.size(); ++D) {
    Layer &L = G.Layers[D];
    if (L.Kind != LayerKind::Concat)
      continue;
    Flat[D] = L.Inputs;
    size_t Best = D;
    for (size_t C = 0; C < D; ++C) {
      const std::vector<int> &P = Flat[C];
      if (G.Layers[C].Kind != LayerKind::Concat || InConcat[C] || P.size() < 2 ||
          P.size() >= Flat[D].size() || !std::equal(P.begin(), P.end(), Flat[D].begin()))
        continue;
      if (Best == D || P.size() > Flat[Best].size())
        Best = C;
    }
    if (Best != D) {
      std::vector<int> Ins = {int(Best)};
      Ins.insert(Ins.end(), Flat[D].begin() + long(Flat[Best].size()), Flat[D].end());
      L.Inputs = std::move(Ins);
      L.In = G.Layers[Best].Out;
    }
    for (int In : L.Inputs)
      if (In >= 0)
        InConcat[size_t(In)] = true;
  }
}

void OnnxImporter::addCopyIfEmpty() {
  // Flatten and Softmax leave the accelerator nothing to do; a graph made of
  // them alone (or of Identity) still needs one layer to produce its output.
  // A 1x1 max pooling with stride 1 copies its input exactly.
  for (const Layer &L : G.Layers)
    if (L.Kind != LayerKind::Flatten && L.Kind != LayerKind::Softmax)
      return;
  Layer Copy;
  Copy.Kind = LayerKind::MaxPool;
  Copy.TypeName = "maxpool";
  Copy.Name = uniqueName(G.InputName + "_copy");
  Copy.Loc = {File, 0};
  Copy.Inputs = {-1};
  Copy.In = Copy.Out = G.Input;
  for (Layer &L : G.Layers)
    for (int &In : L.Inputs)
      ++In;
  G.Layers.insert(G.Layers.begin(), std::move(Copy));
}

void OnnxImporter::checkOutput() {
  const OnnxValue &Out = Values.at(OutputName);
  Result.OutputDims = Out.Dims;
  const onnx::ValueInfoProto &Declared = GP.output(0);
  if (!Declared.type().has_tensor_type() || !Declared.type().tensor_type().has_shape())
    return;
  const onnx::TensorShapeProto &S = Declared.type().tensor_type().shape();
  bool Same = S.dim_size() == int(Out.Dims.size());
  for (int I = 0; Same && I < S.dim_size(); ++I)
    if (S.dim(I).has_dim_value() && S.dim(I).dim_value() != Out.Dims[size_t(I)])
      Same = I == 0 && SymbolicBatch; // the batch was read as 1
  if (!Same) {
    std::vector<std::string> D;
    for (const auto &Dim : S.dim())
      D.push_back(Dim.has_dim_value() ? std::to_string(Dim.dim_value()) : Dim.dim_param());
    throw OnnxError{fmt::format("{}: graph output '{}' is declared [{}], but its operators give "
                                "{}",
                                File, OutputName, fmt::join(D, ", "), dimsStr(Out.Dims))};
  }
}
