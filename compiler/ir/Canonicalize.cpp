//===- Canonicalize.cpp - Rewriting a model into the kinds the compiler maps -===//
//
// Models are written the way PyTorch defines them (batchnorm after conv, fc
// after flatten, a standalone ReLU, add then ReLU at the end of a residual
// block), but the accelerator computes conv + bias + residual + ReLU in one
// pass over the accumulators. canonicalize() closes that gap once, here, so
// that the compiler, the reference executor and the simulator all see the
// same few kinds (isCanonicalKind) and agree bit for bit. The rules are in
// docs/model-format.md ("Canonical form") and docs/fixed-point.md.
//
// Each step marks layers to remove, each with the layer whose output replaces
// it, and eraseLayers() then redirects readers and compacts the indices. The
// steps run in an order where no step undoes or enables an earlier one
// (flatten before fc, fc before the batchnorm fold, relu before add fusion),
// and the fusions repeat until nothing changes, so the result is a fixed
// point: canonicalizing a canonical graph changes nothing. The last step,
// merging sibling convs, rebuilds the layer order instead
// (MergeSiblings.cpp).
//
//===----------------------------------------------------------------------===//

#include "CanonSteps.h"
#include "ChannelMoves.h"
#include "MergeSiblings.h"
#include "PoolConcats.h"
#include "snow/ir/Graph.h"

#include "snow/support/Parallel.h"
#include <cassert>
#include <cmath>
#include <fmt/format.h>

using namespace snow::ir;

namespace {

struct CanonError {
  std::string Msg;
};

[[noreturn]] void fail(const Layer &L, const std::string &Msg) {
  throw CanonError{fmt::format("{}: layer '{}': {}", L.Loc.str(), L.Name, Msg)};
}

std::string typeOf(const Layer &L) { return L.TypeName.empty() ? kindName(L.Kind) : L.TypeName; }

std::string nameOf(const Graph &G, int I) {
  return I < 0 ? "the graph input '" + G.InputName + "'"
               : fmt::format("{} '{}'", typeOf(G.Layers[I]), G.Layers[I].Name);
}

} // namespace

std::vector<unsigned> snow::ir::detail::useCounts(const Graph &G) {
  std::vector<unsigned> Uses(G.Layers.size(), 0);
  for (const Layer &L : G.Layers) {
    for (int I : L.Inputs)
      if (I >= 0)
        ++Uses[I];
    if (L.HasResidual && L.Residual >= 0)
      ++Uses[L.Residual];
  }
  if (!Uses.empty())
    ++Uses.back();
  return Uses;
}

namespace {

using detail::Keep;
using detail::useCounts;

} // namespace

void snow::ir::detail::eraseLayers(Graph &G, const std::vector<int> &Replace) {
  size_t N = G.Layers.size();
  assert(Replace.size() == N && "one entry per layer");
  if (N == 0)
    return;
  auto Resolve = [&](int I) {
    while (I >= 0 && Replace[I] != Keep) {
      assert(Replace[I] < I && "a layer is replaced by an earlier one");
      I = Replace[I];
    }
    return I;
  };
  if (Replace.back() != Keep) {
    // The host reads the last layer, so whatever replaces a removed output
    // must itself become the last layer.
    const Layer &Out = G.Layers.back();
    int R = Resolve(int(N) - 1);
    if (R < 0)
      fail(Out, "nothing is left for the accelerator once it is removed (it reads the graph "
                "input)");
    for (size_t I = R + 1; I < N; ++I)
      if (Replace[I] == Keep)
        fail(Out, fmt::format("it is the graph output and is removed, but its input '{}' is "
                              "not the last layer that remains ('{}' comes after it)",
                              G.Layers[R].Name, G.Layers[I].Name));
  }
  std::vector<int> NewIndex(N, -1);
  std::vector<Layer> Kept;
  for (size_t I = 0; I < N; ++I)
    if (Replace[I] == Keep) {
      NewIndex[I] = int(Kept.size());
      Kept.push_back(std::move(G.Layers[I]));
    }
  auto Map = [&](int I) {
    I = Resolve(I);
    return I < 0 ? -1 : NewIndex[I];
  };
  for (Layer &L : Kept) {
    for (int &I : L.Inputs)
      I = Map(I);
    if (L.HasResidual)
      L.Residual = Map(L.Residual);
  }
  G.Layers = std::move(Kept);
}

namespace {

using detail::eraseLayers;

/// Flatten is a view (CHW order, as PyTorch): readers read its input. Only
/// readers that treat their input as one vector may do that.
void removeFlattens(Graph &G) {
  std::vector<int> Replace(G.Layers.size(), Keep);
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const Layer &F = G.Layers[I];
    if (F.Kind != LayerKind::Flatten)
      continue;
    for (Layer &U : G.Layers) {
      bool Reads = llvm::is_contained(U.Inputs, int(I));
      if (U.HasResidual && U.Residual == int(I))
        fail(F, fmt::format("a flatten may only feed fc or softmax layers or be the graph "
                            "output, but '{}' adds it as a residual",
                            U.Name));
      if (!Reads)
        continue;
      if (U.Kind != LayerKind::Fc && U.Kind != LayerKind::Softmax)
        fail(F, fmt::format("a flatten may only feed fc or softmax layers or be the graph "
                            "output, but {} reads it",
                            nameOf(G, int(&U - G.Layers.data()))));
      U.In = F.In;
    }
    Replace[I] = F.input();
  }
  eraseLayers(G, Replace);
}

void removeSoftmax(Graph &G) {
  std::vector<int> Replace(G.Layers.size(), Keep);
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const Layer &S = G.Layers[I];
    if (S.Kind != LayerKind::Softmax)
      continue;
    if (I + 1 != G.Layers.size())
      fail(S, "a softmax must be the last layer (it runs on the host, after the accelerator)");
    Replace[I] = S.input();
    G.HostSoftmax = true;
  }
  eraseLayers(G, Replace);
}

/// An fc is a conv whose kernel is its whole input: (Out, C*H*W) weights
/// are already OIHW (Out, C, H, W) in memory.
void fcToConv(Graph &G) {
  for (Layer &L : G.Layers) {
    if (L.Kind != LayerKind::Fc)
      continue;
    L.Kind = LayerKind::Conv;
    L.KH = L.In.H;
    L.KW = L.In.W;
    L.SH = L.SW = 1;
    L.PadT = L.PadB = L.PadL = L.PadR = 0;
    L.Groups = 1;
    assert(L.Out == (Shape{L.Out.C, 1, 1}) && "an fc gives one value per output");
  }
}

void foldBatchNorms(Graph &G) {
  std::vector<unsigned> Uses = useCounts(G);
  std::vector<int> Replace(G.Layers.size(), Keep);
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const Layer &BN = G.Layers[I];
    if (BN.Kind != LayerKind::BatchNorm)
      continue;
    int P = BN.input();
    auto Refuse = [&](const std::string &Why) {
      fail(BN, "cannot fold the batchnorm into the layer before it: " + Why +
                   " (a batchnorm must directly follow a conv or fc that feeds nothing else "
                   "and has no relu)");
    };
    if (P < 0)
      Refuse("it reads " + nameOf(G, P));
    Layer &C = G.Layers[P];
    if (C.Kind != LayerKind::Conv)
      Refuse("its input is " + nameOf(G, P));
    if (Uses[P] != 1)
      Refuse(fmt::format("its input '{}' also feeds other layers", C.Name));
    if (C.Relu || C.HasResidual || C.Activation != Act::None)
      Refuse(fmt::format("its input '{}' applies {} first", C.Name,
                         C.Relu          ? "a relu"
                         : C.HasResidual ? "a residual add"
                                         : "an activation"));
    if (C.DynamicWeights)
      Refuse(fmt::format("its input '{}' takes its weights from a tensor at run time", C.Name));
    assert(BN.Gamma.size() == C.Out.C && BN.Var.size() == C.Out.C && "one entry per channel");
    // In double, as docs/fixed-point.md specifies: the folded float values
    // then do not depend on the order of the float operations.
    auto Scale = [&](uint32_t O) {
      return double(BN.Gamma[O]) / std::sqrt(double(BN.Var[O]) + double(BN.Eps));
    };
    if (C.Seeded) {
      assert(C.Seeded->Scale.empty() && "a conv folds one batchnorm (C is not one)");
      // Deferred weights are scaled where they are drawn. Rounding is
      // monotonic and symmetric, so a channel's largest |value| is its
      // largest unscaled one, scaled and rounded the same way.
      SeededWeights &S = *C.Seeded;
      S.Scale.resize(C.Out.C);
      for (uint32_t O = 0; O < C.Out.C; ++O) {
        S.Scale[O] = Scale(O);
        S.ChannelMax[O] = float(double(S.ChannelMax[O]) * std::fabs(S.Scale[O]));
      }
    }
    size_t PerChannel = C.Weights.size() / C.Out.C;
    // Channels are independent: a large conv's are scaled on several threads.
    snow::parallelFor(C.Out.C, double(PerChannel), 1 << 18, [&](size_t Begin, size_t End) {
      for (size_t O = Begin; O < End; ++O) {
        const double S = Scale(uint32_t(O));
        for (size_t K = 0; K < PerChannel; ++K) {
          float &W = C.Weights[O * PerChannel + K];
          W = float(double(W) * S);
        }
      }
    });
    for (uint32_t O = 0; O < C.Out.C; ++O)
      C.Bias[O] = float((double(C.Bias[O]) - double(BN.Mean[O])) * Scale(O) + double(BN.Beta[O]));
    C.HasBias = true;
    Replace[I] = P;
  }
  eraseLayers(G, Replace);
}

/// Rebuilds the graph layer by layer: Expand(L, Out) appends what replaces L
/// (its inputs and residual already renumbered) to Out and returns the index
/// of the layer its readers read.
template <typename Fn> void expandLayers(Graph &G, Fn Expand) {
  std::vector<Layer> Out;
  std::vector<int> NewIndex(G.Layers.size());
  auto Renumber = [&](int I) { return I < 0 ? I : NewIndex[size_t(I)]; };
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    Layer L = std::move(G.Layers[I]);
    for (int &In : L.Inputs)
      In = Renumber(In);
    if (L.HasResidual)
      L.Residual = Renumber(L.Residual);
    NewIndex[I] = Expand(std::move(L), Out);
  }
  G.Layers = std::move(Out);
}

/// A 1x1 conv of In channels to Out with the given weights (Out x In) and
/// bias (empty: none), named Name, reading From.
Layer pointwise(const Layer &Of, const std::string &Name, int From, unsigned In, unsigned Out,
                std::vector<float> Weights, std::vector<float> Bias) {
  Layer L;
  L.Name = Name;
  L.Kind = LayerKind::Conv;
  L.TypeName = "layernorm";
  L.Loc = Of.Loc;
  L.Inputs = {From};
  L.In = {In, Of.In.H, Of.In.W};
  L.Out = {Out, Of.In.H, Of.In.W};
  L.Weights = std::move(Weights);
  L.HasBias = !Bias.empty();
  L.Bias = L.HasBias ? std::move(Bias) : std::vector<float>(Out, 0.0f);
  return L;
}

/// A layernorm over C channels (docs/model-format.md, "Canonical form",
/// step 4) becomes, per position: the mean (a 1x1 conv to one channel,
/// weights 1/C), x minus it (a 1x1 conv from that channel, weights -1, with
/// x as its fused residual: one rounding), its square (mul), the variance
/// plus eps through the rsqrt table (a 1x1 conv to one channel with bias
/// eps), that broadcast to C channels times gamma (a 1x1 conv), the product
/// of the two (mul), and beta added by a depthwise 1x1 conv where it is not
/// zero. Every step is the array's or the writeback's: 4C MACs a position
/// and two products, beside a ConvNeXt block's 8C^2 + 49C MACs.
void expandLayerNorms(Graph &G) {
  expandLayers(G, [](Layer L, std::vector<Layer> &Out) {
    auto Push = [&](Layer N) {
      Out.push_back(std::move(N));
      return int(Out.size()) - 1;
    };
    if (L.Kind != LayerKind::LayerNorm)
      return Push(std::move(L));
    const unsigned C = L.In.C;
    const int X = L.input();
    const float Inv = 1.0f / float(C);
    const int Mean = Push(pointwise(L, L.Name + "_mean", X, C, 1, std::vector<float>(C, Inv), {}));
    Layer Center = pointwise(L, L.Name + "_center", Mean, 1, C, std::vector<float>(C, -1.0f), {});
    Center.HasResidual = true;
    Center.Residual = X;
    const int Ctr = Push(std::move(Center));
    Layer Square;
    Square.Name = L.Name + "_square";
    Square.Kind = LayerKind::Mul;
    Square.TypeName = "layernorm";
    Square.Loc = L.Loc;
    Square.Inputs = {Ctr, Ctr};
    Square.In = Square.Out = L.In;
    const int Sq = Push(Square);
    Layer Rs = pointwise(L, L.Name + "_rsqrt", Sq, C, 1, std::vector<float>(C, Inv), {L.Eps});
    Rs.Activation = Act::Rsqrt;
    const int R = Push(std::move(Rs));
    std::vector<float> Gamma = L.Gamma.empty() ? std::vector<float>(C, 1.0f) : L.Gamma;
    const int Scale = Push(pointwise(L, L.Name + "_scale", R, 1, C, std::move(Gamma), {}));
    const bool HasBeta = llvm::any_of(L.Beta, [](float B) { return B != 0; });
    Layer Norm = Square;
    Norm.Name = HasBeta ? L.Name + "_norm" : L.Name;
    Norm.Inputs = {Ctr, Scale};
    const int Prod = Push(std::move(Norm));
    if (!HasBeta)
      return Prod;
    Layer Shift = pointwise(L, L.Name, Prod, C, C, std::vector<float>(C, 1.0f), L.Beta);
    Shift.Groups = C;
    return Push(std::move(Shift));
  });
}

/// Whether L is a depthwise conv (a group a channel).
bool isDepthwise(const Layer &L) {
  return L.Kind == LayerKind::Conv && L.Groups > 1 && L.Groups == L.Out.C && L.Out.C == L.In.C;
}

/// Whether layer I of Layers is a depthwise conv, or an activation or
/// batchnorm (fused into the conv later) of one.
bool afterDepthwise(const std::vector<Layer> &Layers, int I) {
  while (I >= 0 && (Layers[size_t(I)].Kind == LayerKind::Activation ||
                    Layers[size_t(I)].Kind == LayerKind::Relu ||
                    Layers[size_t(I)].Kind == LayerKind::BatchNorm))
    I = Layers[size_t(I)].input();
  return I >= 0 && isDepthwise(Layers[size_t(I)]);
}

/// The side of the blocks a global average pool of an H x W map is first
/// averaged over (0: none; see globalToAvgPool). Dw: the map is a depthwise
/// conv's output.
unsigned poolBlockSide(unsigned H, unsigned W, bool Dw) {
  // A window larger than this is averaged in two steps.
  constexpr uint64_t MaxOneStep = 32 * 32;
  auto Divides = [&](unsigned F) { return H % F == 0 && W % F == 0; };
  // After a depthwise conv (squeeze-and-excitation's), blocks of 7 or the
  // largest side up to 8, where there are at least four: that conv can
  // then average tiles of whole blocks as it writes them back
  // (markHostedPools), and the map is not read back for its mean.
  // MobileNet-sized maps (7 x 2^k) take blocks of 7, which leaves their
  // conv the most tile shapes.
  if (Dw) {
    const uint64_t Pixels = uint64_t(H) * W;
    if (Pixels >= 4 * 49 && Pixels / 49 <= MaxOneStep && Divides(7))
      return 7;
    for (unsigned F = 8; F >= 2; --F)
      if (Divides(F) && Pixels >= 4 * uint64_t(F) * F && Pixels / (F * F) <= MaxOneStep)
        return F;
  }
  // Otherwise only a map too large for one window: the smallest F that
  // leaves at most 32 x 32.
  unsigned F = 2;
  while (uint64_t(H / F) * (W / F) > MaxOneStep && F <= std::min(H, W))
    ++F;
  return uint64_t(H) * W > MaxOneStep && Divides(F) ? F : 0;
}

void globalToAvgPool(Graph &G) {
  expandLayers(G, [&](Layer L, std::vector<Layer> &Out) {
    if (L.Kind == LayerKind::GlobalAvgPool) {
      // The hardware averages a window held in one maps buffer region:
      // EfficientNet's squeeze-and-excitation averages 112x112 maps. A map
      // is first averaged over F x F blocks (poolBlockSide), then globally:
      // the same mean, with one more rounding (docs/model-format.md, step
      // 5).
      if (const unsigned F = poolBlockSide(L.In.H, L.In.W, afterDepthwise(Out, L.input()))) {
        Layer Pre;
        Pre.Name = L.Name + "_blocks";
        Pre.Kind = LayerKind::AvgPool;
        Pre.TypeName = "avgpool";
        Pre.Loc = L.Loc;
        Pre.Inputs = L.Inputs;
        Pre.In = L.In;
        Pre.KH = Pre.SH = Pre.KW = Pre.SW = F;
        Pre.Out = {L.In.C, L.In.H / F, L.In.W / F};
        Out.push_back(std::move(Pre));
        L.Inputs = {int(Out.size()) - 1};
        L.In = Out.back().Out;
      }
      L.Kind = LayerKind::AvgPool;
      L.KH = L.SH = L.In.H;
      L.KW = L.SW = L.In.W;
      L.PadT = L.PadB = L.PadL = L.PadR = 0;
      L.CeilMode = false;
    }
    Out.push_back(std::move(L));
    return int(Out.size()) - 1;
  });
}

/// A relu whose producer is a conv or add that feeds only it becomes that
/// producer's writeback ReLU. Returns whether anything changed.
bool fuseRelus(Graph &G) {
  std::vector<unsigned> Uses = useCounts(G);
  std::vector<int> Replace(G.Layers.size(), Keep);
  bool Changed = false;
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const Layer &R = G.Layers[I];
    int P = R.input();
    if (R.Kind != LayerKind::Relu || P < 0 || Uses[P] != 1)
      continue;
    Layer &Prod = G.Layers[P];
    // After an activation a relu stays a layer of its own: the writeback
    // rounds, then looks up the table, and a fused relu would come first.
    if ((Prod.Kind != LayerKind::Conv && Prod.Kind != LayerKind::Add) ||
        Prod.Activation != Act::None)
      continue;
    Prod.Relu = true;
    Replace[I] = P;
    Changed = true;
  }
  eraseLayers(G, Replace);
  return Changed;
}

/// An activation whose producer is a conv or add that feeds only it, with no
/// ReLU or activation yet, becomes that producer's post-processing table.
/// Returns whether anything changed.
bool fuseActivations(Graph &G) {
  std::vector<unsigned> Uses = useCounts(G);
  std::vector<int> Replace(G.Layers.size(), Keep);
  bool Changed = false;
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const Layer &A = G.Layers[I];
    int P = A.input();
    if (A.Kind != LayerKind::Activation || P < 0 || Uses[P] != 1)
      continue;
    Layer &Prod = G.Layers[P];
    if ((Prod.Kind != LayerKind::Conv && Prod.Kind != LayerKind::Add) || Prod.Relu ||
        Prod.Activation != Act::None)
      continue;
    Prod.Activation = A.Activation;
    Prod.ActP0 = A.ActP0;
    Prod.ActP1 = A.ActP1;
    Replace[I] = P;
    Changed = true;
  }
  eraseLayers(G, Replace);
  return Changed;
}

/// What is left of activations after fusion: an activation with no conv to
/// sit in becomes one, a depthwise 1x1 conv with unit weights and no bias
/// (exact: the output is its input before the table); an add that kept one
/// is an error (its conv could not take the add).
void lowerActivations(Graph &G) {
  for (Layer &L : G.Layers) {
    if (L.Kind == LayerKind::Activation) {
      L.Kind = LayerKind::Conv;
      L.Groups = L.In.C;
      L.KH = L.KW = L.SH = L.SW = 1;
      L.Weights.assign(L.In.C, 1.0f);
      L.Bias.assign(L.In.C, 0.0f);
      L.HasBias = false;
    }
    if (L.Kind == LayerKind::Add && L.Activation != Act::None)
      fail(L, fmt::format("the {} after this add needs the add to fuse into the conv before it "
                          "(a conv that feeds only the add, with no relu of its own)",
                          actName(L.Activation, L.ActP0, L.ActP1)));
  }
}

/// An add of a conv that feeds only the add and has no ReLU of its own
/// becomes that conv's residual. Only the later input is a candidate: the
/// other one (the residual) must already exist when the conv runs.
bool fuseAdds(Graph &G) {
  std::vector<unsigned> Uses = useCounts(G);
  std::vector<int> Replace(G.Layers.size(), Keep);
  bool Changed = false;
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const Layer &A = G.Layers[I];
    if (A.Kind != LayerKind::Add)
      continue;
    assert(A.Inputs.size() == 2 && "an add has two inputs");
    int C = std::max(A.Inputs[0], A.Inputs[1]), R = std::min(A.Inputs[0], A.Inputs[1]);
    if (C < 0 || R >= C || Uses[C] != 1)
      continue;
    Layer &Conv = G.Layers[C];
    if (Conv.Kind != LayerKind::Conv || Conv.Relu || Conv.HasResidual ||
        Conv.Activation != Act::None)
      continue;
    Conv.HasResidual = true;
    Conv.Residual = R;
    Conv.Relu = A.Relu;
    Conv.Activation = A.Activation;
    Conv.ActP0 = A.ActP0;
    Conv.ActP1 = A.ActP1;
    Replace[I] = C;
    Changed = true;
  }
  eraseLayers(G, Replace);
  return Changed;
}

/// Marks each depthwise conv whose output an average pool of F x F blocks
/// (stride F, no padding, the map a whole number of blocks) reads: the
/// compiler may have the conv average its tiles as it writes them back, and
/// that pool then runs no code (Layer::PoolBlock, HostedPool, PoolHost;
/// compiler::hostBlock). The first such pool of a conv; recomputed from
/// scratch, so a canonical graph stays as it is.
void markHostedPools(Graph &G) {
  for (Layer &L : G.Layers) {
    L.PoolBlock = 0;
    L.HostedPool = L.PoolHost = -1;
  }
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    Layer &Q = G.Layers[I];
    const int D = Q.input();
    if (Q.Kind != LayerKind::AvgPool || D < 0 || Q.KH < 2 || Q.KH != Q.KW || Q.SH != Q.KH ||
        Q.SW != Q.KW || Q.PadT || Q.PadB || Q.PadL || Q.PadR || Q.CeilMode)
      continue;
    Layer &C = G.Layers[size_t(D)];
    if (!isDepthwise(C) || C.HasResidual || C.HostedPool >= 0 || C.Out.H % Q.KH || C.Out.W % Q.KW ||
        Q.Out.C != C.Out.C)
      continue;
    C.PoolBlock = Q.KH;
    C.HostedPool = int(I);
    Q.PoolHost = D;
  }
}

} // namespace

llvm::Error snow::ir::canonicalize(Graph &G, const CanonOptions &Opts) {
  try {
    removeFlattens(G);
    removeSoftmax(G);
    fcToConv(G);
    foldBatchNorms(G);
    expandLayerNorms(G);
    // YAML's shuffle and slice into the convs that read them, as the ONNX
    // importer does on import; relus are still layers of their own, which
    // the concat split needs (ChannelMoves.h).
    if (Opts.FoldChannelMoves && detail::foldChannelMoves(G)) {
      detail::splitConcatsByReader(G);
      detail::passHalvesThrough(G);
    }
    globalToAvgPool(G);
    // A relu may follow a relu (fused only once the first is gone), and an
    // add's relu must be on the add before the add moves into its conv.
    for (bool Changed = true; Changed;) {
      Changed = fuseRelus(G);
      Changed |= fuseActivations(G);
      Changed |= fuseAdds(G);
    }
    lowerActivations(G);
    // A part may read a concat that only it reads (a pool of a pool of a
    // concat): split until none is left, so a canonical graph stays as it is.
    while (detail::poolConcatInputs(G))
      ;
    detail::mergeSiblings(G, Opts.OneFormat);
    markHostedPools(G);
  } catch (const CanonError &E) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), E.Msg);
  }
  assert(llvm::all_of(G.Layers, [](const Layer &L) { return isCanonicalKind(L.Kind); }) &&
         "canonicalize() left a non-canonical kind");
  return llvm::Error::success();
}
