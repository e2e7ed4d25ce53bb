//===- ConcatSplit.cpp - Concats split by the channels each reader uses ---===//
//
// After a channel shuffle and a chunk (OnnxShuffle.cpp on import from ONNX,
// FoldSelections.cpp in canonicalize() for YAML's shuffle and slice layers),
// ShuffleNet v2's concat [x1, branch(x2)] is read by two 1x1 convs: the next
// block's selection of the half it passes on, and its branch's first conv,
// each using half of the channels (the others have zero weights) but
// reading all of them. Each layer that writes into the concat can instead be
// split by output channels into one layer per reader (a conv's rows, with
// the relus and batchnorms after it; a selection's rows), costing no MACs,
// and the concat into one concat per reader of just its channels: each
// reader then reads only what it uses. Done when every reader is a conv with
// group 1 (or a selection), no channel is used by two readers, and every
// input of the concat is such a conv or selection (with or without relus and
// batchnorms after it, each read by the next alone) read by the concat
// alone; otherwise the concat stays as it is.
//
//===----------------------------------------------------------------------===//

#include "ChannelMoves.h"

#include <cassert>
#include <fmt/format.h>
#include <map>
#include <set>

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

std::vector<uint32_t> snow::ir::detail::selectRows(const Layer &L) {
  const uint32_t PerGroup = L.In.C / L.Groups, OutPerGroup = L.Out.C / L.Groups;
  std::vector<uint32_t> Rows(L.Out.C, 0);
  for (uint32_t O = 0; O < L.Out.C; ++O)
    for (uint32_t I = 0; I < PerGroup; ++I)
      if (L.Weights[size_t(O) * PerGroup + I] != 0)
        Rows[O] = (O / OutPerGroup) * PerGroup + I;
  return Rows;
}

std::string snow::ir::detail::splitBase(const std::string &Name) {
  const size_t At = Name.rfind("_part");
  if (At == std::string::npos || At + 5 == Name.size() || Name.back() == '.' ||
      Name.find_first_not_of("0123456789.", At + 5) != std::string::npos)
    return {};
  return Name.substr(0, At);
}

namespace {

/// Want, or Want_K for the first K that no layer (nor the input) is called.
std::string uniqueName(std::set<std::string> &Names, const std::string &Want) {
  std::string Name = Want;
  for (unsigned K = 1; Names.count(Name); ++K)
    Name = fmt::format("{}_{}", Want, K);
  Names.insert(Name);
  return Name;
}

/// Part R of Name: Name_partR, or Name.R for a part of a part.
std::string partName(const std::string &Name, size_t R) {
  return splitBase(Name).empty() ? fmt::format("{}_part{}", Name, R)
                                 : fmt::format("{}.{}", Name, R);
}

/// A conv with group 1 or a selection: its rows can be split, and its
/// input channels read through a map.
bool rowsSplit(const Layer &L) {
  return L.isChannelCopy() || (L.Kind == LayerKind::Conv && L.Groups == 1 && !L.Relu &&
                               L.Activation == Act::None && !L.HasResidual && !L.DynamicWeights);
}

/// The input channels a reader uses (any weight not zero).
std::vector<bool> usedChannels(const Layer &L) {
  std::vector<bool> Used(L.In.C, false);
  if (L.isChannelCopy()) {
    for (uint32_t R : selectRows(L))
      Used[R] = true;
    return Used;
  }
  const size_t K = size_t(L.KH) * L.KW;
  for (uint32_t O = 0; O < L.Out.C; ++O)
    for (uint32_t I = 0; I < L.In.C; ++I)
      for (size_t T = 0; T < K; ++T)
        if (L.Weights[(size_t(O) * L.In.C + I) * K + T] != 0)
          Used[I] = true;
  return Used;
}

/// Splits the concat at Y into one concat per reader of just the channels
/// it uses, where it can; whether it did.
bool splitConcat(Graph &G, size_t Y, std::set<std::string> &Names) {
  const size_t N = G.Layers.size();
  const Layer &Cat = G.Layers[Y];
  if (Y + 1 == N)
    return false;
  std::vector<unsigned> Uses(N, 0);
  std::vector<size_t> Readers;
  for (size_t I = 0; I < N; ++I)
    for (int In : G.Layers[I].Inputs)
      if (In >= 0) {
        ++Uses[size_t(In)];
        if (size_t(In) == Y)
          Readers.push_back(I);
      }
  // Readers: convs reading Y once; each channel used by one reader at most.
  std::vector<int> Owner(Cat.Out.C, -1);
  bool Gain = Readers.size() > 1;
  for (size_t R = 0; R < Readers.size(); ++R) {
    materializeWeights(G.Layers[Readers[R]]); // Seeded weights (YAML) are drawn here.
    const Layer &L = G.Layers[Readers[R]];
    if (!rowsSplit(L) || L.Inputs.size() != 1 || (R > 0 && Readers[R] == Readers[R - 1]))
      return false;
    std::vector<bool> Used = usedChannels(L);
    for (uint32_t C = 0; C < Cat.Out.C; ++C) {
      if (!Used[C]) {
        Gain = true;
        continue;
      }
      if (Owner[C] >= 0)
        return false;
      Owner[C] = int(R);
    }
  }
  if (!Gain || Readers.empty())
    return false;
  // Inputs: a conv or selection, or relus and batchnorms of one (an ONNX
  // model's batchnorms are still layers here), each read by the next alone.
  std::map<size_t, size_t> InputBase;    // the layer written into Y -> its first channel
  std::map<size_t, size_t> InnerToOuter; // a layer below an input -> that input
  uint32_t Base = 0;
  for (int In : Cat.Inputs) {
    if (In < 0 || Uses[size_t(In)] != 1 || InputBase.count(size_t(In)))
      return false;
    size_t Cur = size_t(In);
    while (G.Layers[Cur].Kind == LayerKind::Relu || G.Layers[Cur].Kind == LayerKind::BatchNorm) {
      const int P = G.Layers[Cur].input();
      if (P < 0 || Uses[size_t(P)] != 1)
        return false;
      Cur = size_t(P);
      InnerToOuter[Cur] = size_t(In);
    }
    if (!rowsSplit(G.Layers[Cur]))
      return false;
    InputBase[size_t(In)] = Base;
    Base += G.Layers[size_t(In)].Out.C;
  }
  for (auto [In, Base] : InputBase)
    materializeWeights(G.Layers[In]);
  for (auto [Inner, Outer] : InnerToOuter)
    materializeWeights(G.Layers[Inner]);

  // Per reader, its channels of each input (local numbers) and their new
  // index in the reader's part of the concat.
  std::vector<uint32_t> NewIndex(Cat.Out.C, 0);
  std::vector<uint32_t> PartC(Readers.size(), 0);
  std::map<std::pair<size_t, size_t>, std::vector<uint32_t>> Local; // (input, reader)
  for (int In : Cat.Inputs) {
    const uint32_t B = uint32_t(InputBase[size_t(In)]);
    for (uint32_t C = 0; C < G.Layers[size_t(In)].Out.C; ++C)
      if (int R = Owner[B + C]; R >= 0) {
        Local[{size_t(In), size_t(R)}].push_back(C);
        NewIndex[B + C] = PartC[size_t(R)]++;
      }
  }

  std::vector<Layer> Out;
  std::vector<int> New(N, -1);
  std::map<std::pair<size_t, size_t>, int> PartOf; // (old layer, reader) -> new index
  std::vector<int> PartLayer(Readers.size(), -1);
  auto Remap = [&](Layer &L) {
    for (int &In : L.Inputs)
      In = In < 0 ? -1 : New[size_t(In)];
  };
  for (size_t I = 0; I < N; ++I) {
    const bool Outer = InputBase.count(I), Inner = InnerToOuter.count(I);
    if (Outer || Inner) {
      const size_t Key = Inner ? InnerToOuter[I] : I;
      for (size_t R = 0; R < Readers.size(); ++R) {
        auto It = Local.find({Key, R});
        if (It == Local.end())
          continue;
        const std::vector<uint32_t> &Ch = It->second;
        const Layer &L = G.Layers[I];
        Layer Part;
        if (L.Kind == LayerKind::Relu || L.Kind == LayerKind::BatchNorm) {
          Part = L;
          Part.Inputs = {PartOf.at({size_t(L.input()), R})};
          Part.In.C = Part.Out.C = uint32_t(Ch.size());
          for (std::vector<float> *V : {&Part.Gamma, &Part.Beta, &Part.Mean, &Part.Var})
            if (!V->empty()) {
              std::vector<float> Sub;
              for (uint32_t C : Ch)
                Sub.push_back((*V)[C]);
              *V = std::move(Sub);
            }
        } else if (L.isChannelCopy()) {
          std::vector<uint32_t> Rows = selectRows(L), Sub;
          for (uint32_t C : Ch)
            Sub.push_back(Rows[C]);
          Part = selectLayer(L.input() < 0 ? -1 : New[size_t(L.input())], L.In, Sub);
        } else {
          Part = L;
          Remap(Part);
          const size_t Row = L.Weights.size() / L.Out.C;
          Part.Weights.clear();
          Part.Bias.clear();
          for (uint32_t C : Ch) {
            Part.Weights.insert(Part.Weights.end(), L.Weights.begin() + long(C * Row),
                                L.Weights.begin() + long((C + 1) * Row));
            Part.Bias.push_back(L.Bias[C]);
          }
          Part.Out.C = uint32_t(Ch.size());
        }
        Part.Name = uniqueName(Names, partName(L.Name, R));
        Part.Loc = L.Loc;
        PartOf[{I, R}] = int(Out.size());
        Out.push_back(std::move(Part));
      }
      continue;
    }
    if (I == Y) {
      for (size_t R = 0; R < Readers.size(); ++R) {
        std::vector<int> Parts;
        for (int In : Cat.Inputs)
          if (auto It = PartOf.find({size_t(In), R}); It != PartOf.end())
            Parts.push_back(It->second);
        if (Parts.size() == 1) {
          PartLayer[R] = Parts[0];
          continue;
        }
        Layer C = Cat;
        C.Name = uniqueName(Names, partName(Cat.Name, R));
        C.Inputs = Parts;
        C.In = Out[size_t(Parts[0])].Out;
        C.Out = C.In;
        C.Out.C = PartC[R];
        PartLayer[R] = int(Out.size());
        Out.push_back(std::move(C));
      }
      continue;
    }
    Layer L = std::move(G.Layers[I]);
    Remap(L);
    for (size_t R = 0; R < Readers.size(); ++R) {
      if (Readers[R] != I)
        continue;
      assert(PartLayer[R] >= 0 && "a reader uses some channel");
      // The reader's channels in its part; the others it does not use (zero
      // weights), so any index does.
      std::vector<uint32_t> Rows(Cat.Out.C, 0);
      for (uint32_t C = 0; C < Cat.Out.C; ++C)
        if (Owner[C] == int(R))
          Rows[C] = NewIndex[C];
      readThrough(L, PartLayer[R], Out[size_t(PartLayer[R])].Out, Rows);
    }
    New[I] = int(Out.size());
    Out.push_back(std::move(L));
  }
  G.Layers = std::move(Out);
  return true;
}

} // namespace

Layer snow::ir::detail::selectLayer(int Input, const Shape &In, const std::vector<uint32_t> &Rows) {
  Layer L;
  L.Kind = LayerKind::Conv;
  L.TypeName = "select";
  L.Inputs = {Input};
  L.In = In;
  makeSelection(L, Rows);
  return L;
}

bool snow::ir::detail::splitConcatsByReader(Graph &G) {
  // One sweep. Splitting a concat splits the selections that read it, which
  // can give an earlier part two readers of disjoint channels again; sweeping
  // until nothing changes, with the selections left as copies, took
  // ShuffleNet v2's selections from 15.9 M MACs to 0.3 M, but the branch
  // convs then split into many small layers and zc706 took more cycles
  // (2.03 M per frame instead of 1.81 M; two sweeps 1.85 M, 2026-12-03).
  // passHalvesThrough() sweeps until nothing changes once it has replaced
  // a selection by the parts it copied (PassThrough.cpp), and the parts of
  // one conv merge back into it (MergeSiblings.cpp).
  std::set<std::string> Names = {G.InputName};
  for (const Layer &L : G.Layers)
    Names.insert(L.Name);
  bool Split = false;
  for (size_t Y = 0; Y < G.Layers.size(); ++Y)
    if (G.Layers[Y].Kind == LayerKind::Concat)
      Split |= splitConcat(G, Y, Names);
  return Split;
}
