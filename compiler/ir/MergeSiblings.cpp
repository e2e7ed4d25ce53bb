//===- MergeSiblings.cpp - Horizontal fusion of sibling convs -------------===//
//
// An inception block's branches often start with convs that read the same
// tensor through the same window (its 1x1 reduce convs). One conv over all
// their output channels loads that input once instead of once per branch,
// and its output groups fill the MAC array where a 16-channel branch alone
// would leave most vMACs idle. Each former conv becomes a slice of the
// merged output under its own name, so readers, reports and the reference
// executor still find it. The merged conv has one format for all its
// channels (docs/fixed-point.md).
//
// A merge may cost cycles where it leaves an output group part-filled or
// pieces of a conv that plan worse together (GoogLeNet's i4c and i4d);
// keepApart undoes it for one member, after the formats are chosen, which
// snowc --tune searches (docs/compiler.md, "Tuning").
//
//===----------------------------------------------------------------------===//

#include "MergeSiblings.h"
#include "ChannelMoves.h"

#include "llvm/ADT/STLExtras.h"
#include <set>
#include <unordered_map>

using namespace snow::ir;

namespace {

/// Whether conv I may be merged with its siblings: a dense conv with fixed
/// weights whose output only convs read (as their input, not a residual).
/// Not the graph output (the host reads the last layer), and not a tensor
/// that shares its format with others (a concat's input, a pool's or an
/// add's): the merged conv has one format, and a concat's group, the widest
/// range of a block, would cost a reduce conv's output its precision
/// (Inception v3's max error 1.89 -> 2.12 % of max |y| on noise frames).
/// With one format everywhere that cost is gone, and a concat's input
/// merges too (an inception block's 1x1 branch with its reduce convs: the
/// compiler stores the slice straight into the concat's tensor).
bool mergeable(const Graph &G, size_t I, const std::vector<bool> &ConvReadOnly) {
  const Layer &L = G.Layers[I];
  return L.Kind == LayerKind::Conv && L.Groups == 1 && !L.DynamicWeights && !L.HasResidual &&
         L.Inputs.size() == 1 && I + 1 != G.Layers.size() && ConvReadOnly[I];
}

/// The parts a concat split made of one conv (ConcatSplit.cpp) were one
/// tensor of one format before the split, which wrote them into one concat:
/// merged back into it, they cost no precision, whatever reads them.
bool partsOfOne(const Layer &A, const Layer &B) {
  const std::string Base = detail::splitBase(A.Name);
  return !Base.empty() && Base == detail::splitBase(B.Name);
}

/// For each layer: whether it is read, and only as the input of convs (or
/// of concats, with \p IntoConcats).
std::vector<bool> convReadOnly(const Graph &G, bool IntoConcats) {
  std::vector<bool> Only(G.Layers.size(), true), Read(G.Layers.size(), false);
  for (const Layer &L : G.Layers) {
    for (int I : L.Inputs)
      if (I >= 0) {
        Read[size_t(I)] = true;
        Only[size_t(I)] = Only[size_t(I)] && (L.Kind == LayerKind::Conv ||
                                              (IntoConcats && L.Kind == LayerKind::Concat));
      }
    if (L.HasResidual && L.Residual >= 0)
      Only[size_t(L.Residual)] = false;
  }
  for (size_t I = 0; I < Only.size(); ++I)
    Only[I] = Only[I] && Read[I];
  return Only;
}

/// Whether convs A and B compute the same function of the same tensor up to
/// their weights: one conv over both weight sets computes both.
bool siblings(const Layer &A, const Layer &B) {
  return A.input() == B.input() && A.Out.H == B.Out.H && A.Out.W == B.Out.W && A.KH == B.KH &&
         A.KW == B.KW && A.SH == B.SH && A.SW == B.SW && A.PadT == B.PadT && A.PadB == B.PadB &&
         A.PadL == B.PadL && A.PadR == B.PadR && A.CeilMode == B.CeilMode && A.Relu == B.Relu &&
         A.Activation == B.Activation && A.ActP0 == B.ActP0 && A.ActP1 == B.ActP1;
}

} // namespace

void snow::ir::detail::mergeSiblings(Graph &G, bool IntoConcats) {
  std::set<std::string> Names = {G.InputName};
  for (const Layer &L : G.Layers)
    Names.insert(L.Name);
  const size_t N = G.Layers.size();
  const std::vector<bool> ConvReadOnly = convReadOnly(G, IntoConcats),
                          PartReadOnly = convReadOnly(G, true);
  // Candidates by the tensor they read (-1: the graph input), in layer
  // order: siblings are looked for among those only, so a long chain of
  // layers costs linear time, not a scan of every later layer.
  std::unordered_map<int, std::vector<size_t>> ByInput;
  // A part read by a concat merges with the parts of its own conv only.
  auto Part = [&](size_t I) {
    return !mergeable(G, I, ConvReadOnly) && mergeable(G, I, PartReadOnly) &&
           !detail::splitBase(G.Layers[I].Name).empty();
  };
  for (size_t I = 0; I < N; ++I)
    if (mergeable(G, I, ConvReadOnly) || Part(I))
      ByInput[G.Layers[I].input()].push_back(I);
  std::vector<int> GroupOf(N, -1);
  std::vector<std::vector<size_t>> Groups;
  for (size_t I = 0; I < N; ++I) {
    if (GroupOf[I] >= 0 || !(mergeable(G, I, ConvReadOnly) || Part(I)))
      continue;
    std::vector<size_t> Members = {I};
    for (size_t J : ByInput[G.Layers[I].input()])
      if (J > I && GroupOf[J] < 0 && siblings(G.Layers[I], G.Layers[J]))
        Members.push_back(J);
    // Parts read by concats merge only with the other parts of their conv
    // (one format, as before the split); other convs never with them.
    const bool PartGroup = llvm::any_of(Members, [&](size_t J) {
      return Part(J) && (J == I || partsOfOne(G.Layers[I], G.Layers[J]));
    });
    llvm::erase_if(Members, [&](size_t J) {
      return J != I && (PartGroup ? !partsOfOne(G.Layers[I], G.Layers[J]) : Part(J));
    });
    if (Members.size() < 2)
      continue;
    for (size_t J : Members)
      GroupOf[J] = int(Groups.size());
    Groups.push_back(std::move(Members));
  }
  if (Groups.empty())
    return;
  // The merged conv goes where its first member was, the slices right after
  // it; every member's readers come after that member, so after its slice.
  std::vector<int> NewIndex(N, -1);
  std::vector<Layer> Out;
  std::vector<bool> Fresh; // Made here: its indices are new already.
  for (size_t I = 0; I < N; ++I) {
    if (GroupOf[I] < 0) {
      NewIndex[I] = int(Out.size());
      Out.push_back(std::move(G.Layers[I]));
      Fresh.push_back(false);
      continue;
    }
    const std::vector<size_t> &Members = Groups[size_t(GroupOf[I])];
    if (Members.front() != I)
      continue; // Merged with the first.
    Layer M = G.Layers[I];
    M.Name.clear();
    M.Out.C = 0;
    M.Weights.clear();
    M.Bias.clear();
    M.Seeded.reset();
    M.HasBias = false;
    for (size_t J : Members) {
      Layer &S = G.Layers[J];
      materializeWeights(S);
      M.Name += (M.Name.empty() ? "" : "+") + S.Name;
      M.Weights.insert(M.Weights.end(), S.Weights.begin(), S.Weights.end()); // OIHW: O first
      M.Bias.insert(M.Bias.end(), S.Bias.begin(), S.Bias.end());
      M.HasBias |= S.HasBias;
      M.Out.C += S.Out.C;
    }
    // The parts of one layer a concat split (ConcatSplit.cpp) merge back
    // into it: its name again, if no layer took it.
    if (llvm::all_of(Members, [&](size_t J) { return partsOfOne(G.Layers[I], G.Layers[J]); }) &&
        Names.insert(splitBase(G.Layers[I].Name)).second)
      M.Name = splitBase(G.Layers[I].Name);
    const int MIndex = int(Out.size());
    Out.push_back(std::move(M));
    Fresh.push_back(false); // Its input is an old index.
    unsigned Begin = 0;
    for (size_t J : Members) {
      const Layer &S = G.Layers[J];
      Layer Sl;
      Sl.Name = S.Name;
      Sl.Kind = LayerKind::Slice;
      Sl.Loc = S.Loc;
      Sl.Inputs = {MIndex};
      Sl.In = Out[size_t(MIndex)].Out;
      Sl.Out = S.Out;
      Sl.SliceBegin = Begin;
      Begin += S.Out.C;
      NewIndex[J] = int(Out.size());
      Out.push_back(std::move(Sl));
      Fresh.push_back(true);
    }
  }
  auto Map = [&](int I) { return I < 0 ? I : NewIndex[size_t(I)]; };
  for (size_t K = 0; K < Out.size(); ++K) {
    if (Fresh[K])
      continue;
    for (int &I : Out[K].Inputs)
      I = Map(I);
    if (Out[K].HasResidual)
      Out[K].Residual = Map(Out[K].Residual);
  }
  G.Layers = std::move(Out);
}

namespace {

/// Erases rows [Begin, Begin + Rows) of a table of \p PerRow values a row
/// (weights OIHW: a row is an output channel) and returns them; an empty
/// table (floats released after quantize()) stays empty.
template <typename T>
std::vector<T> takeRows(std::vector<T> &V, size_t Begin, size_t Rows, size_t PerRow) {
  if (V.empty())
    return {};
  auto First = V.begin() + std::ptrdiff_t(Begin * PerRow);
  auto Last = First + std::ptrdiff_t(Rows * PerRow);
  std::vector<T> Out(First, Last);
  V.erase(First, Last);
  return Out;
}

} // namespace

int snow::ir::mergedConvOf(const Graph &G, const std::string &Member) {
  const auto It = llvm::find_if(G.Layers, [&](const Layer &L) { return L.Name == Member; });
  if (It == G.Layers.end() || It->Kind != LayerKind::Slice || It->input() < 0)
    return -1;
  const int MI = It->input();
  const Layer &M = G.Layers[size_t(MI)];
  const auto Slices = llvm::count_if(
      G.Layers, [&](const Layer &L) { return L.Kind == LayerKind::Slice && L.input() == MI; });
  return M.Kind == LayerKind::Conv && !M.Seeded && M.Groups == 1 && Slices >= 2 ? MI : -1;
}

llvm::Error snow::ir::keepApart(Graph &G, const std::string &Member) {
  const int MI = mergedConvOf(G, Member);
  if (MI < 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s: layer '%s' is no member of a conv merged with its siblings (docs/model-format.md, "
        "\"Canonical form\", step 8)",
        G.Loc.str().c_str(), Member.c_str());
  const auto It = llvm::find_if(G.Layers, [&](const Layer &L) { return L.Name == Member; });
  const size_t S = size_t(It - G.Layers.begin());
  Layer &M = G.Layers[size_t(MI)];
  std::vector<size_t> Slices; // M's members, in channel order
  for (size_t J = size_t(MI) + 1; J < G.Layers.size(); ++J)
    if (G.Layers[J].Kind == LayerKind::Slice && G.Layers[J].input() == MI)
      Slices.push_back(J);
  // The member's conv: M's window, post-processing and formats (one for
  // all its channels, as snowref computes the merged conv), its own rows
  // of M's weights and biases. Every output value is the one M computes.
  const Layer Sl = std::move(*It);
  const size_t PerRow = size_t(M.In.C) * M.KH * M.KW, C = Sl.Out.C;
  Layer Conv = M;
  Conv.Name = Sl.Name;
  Conv.Loc = Sl.Loc;
  Conv.Out = Sl.Out;
  Conv.Weights = takeRows(M.Weights, Sl.SliceBegin, C, PerRow);
  Conv.QWeights = takeRows(M.QWeights, Sl.SliceBegin, C, PerRow);
  Conv.Bias = takeRows(M.Bias, Sl.SliceBegin, C, 1);
  Conv.QBias = takeRows(M.QBias, Sl.SliceBegin, C, 1);
  M.Out.C -= unsigned(C);
  G.Layers[S] = std::move(Conv);
  llvm::erase_value(Slices, S);
  std::string Name;
  for (size_t J : Slices) {
    Layer &O = G.Layers[J];
    if (O.SliceBegin > Sl.SliceBegin)
      O.SliceBegin -= unsigned(C);
    O.In = M.Out;
    Name += (Name.empty() ? "" : "+") + O.Name;
  }
  if (Slices.size() > 1) {
    M.Name = Name;
    return llvm::Error::success();
  }
  // One member left: M becomes that member's conv, and its slice goes.
  const size_t Last = Slices.front();
  M.Name = G.Layers[Last].Name;
  M.Loc = G.Layers[Last].Loc;
  G.Layers.erase(G.Layers.begin() + std::ptrdiff_t(Last));
  auto Map = [&](int &I) {
    if (I == int(Last))
      I = MI;
    else if (I > int(Last))
      --I;
  };
  for (Layer &L : G.Layers) {
    for (int &I : L.Inputs)
      Map(I);
    Map(L.Residual);
    Map(L.HostedPool);
    Map(L.PoolHost);
  }
  return llvm::Error::success();
}
