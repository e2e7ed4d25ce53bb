//===- Tensors.cpp - Where every layer's output lives in DRAM -------------===//
//
// Tensor placement after planning: concat inputs as views into the concat,
// a merged conv's slices as tensors of their own, and each tensor's pixel
// stride, padded to whole DRAM bursts where the plans' accesses then move
// fewer bursts (docs/compiler.md, step 11).
//
//===----------------------------------------------------------------------===//

#include "Tensors.h"
#include "Rounds.h"
#include "snow/support/Bursts.h"
#include <algorithm>
#include <fmt/format.h>
#include <numeric>

using namespace snow;
using namespace snow::compiler;

namespace {

llvm::Error compileError(const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// How layers move a tensor (by the index of the layer whose output it is,
/// or a view of it): each access is the view's channels of every pixel, in
/// groups of Group channels (0: whole pixels), each group one DMA row a
/// pixel. A plan's input in several chunks that are not full depth (a
/// depthwise conv's, a pool's, a conv's input chunks) is read in groups, as
/// is a fused residual per output group, and a conv writes its output groups
/// (a depthwise conv, a pool its chunks); else whole pixels. A conv reading
/// a tensor whole as the window of one output pixel (an fc: a batched
/// program flattens it into one pixel of all its values) pins it dense.
struct TensorAccess {
  unsigned Layer, Group;
};
struct TensorUse {
  std::vector<TensorAccess> Accesses;
  std::vector<bool> Whole;
};

TensorUse tensorUse(const ir::Graph &G, const isa::HwConfig &Hw,
                    const std::vector<LayerPlan> &Plans) {
  const unsigned G0 = Hw.VmacsPerCu * Hw.LanesPerVmac;
  TensorUse U{{}, std::vector<bool>(G.Layers.size(), false)};
  for (const ir::Layer &L : G.Layers)
    if (L.Kind == ir::LayerKind::Conv && L.KH == L.In.H && L.KW == L.In.W && L.input() >= 0)
      U.Whole[size_t(L.input())] = true;
  for (const LayerPlan &P : Plans) {
    const ir::Layer &L = G.Layers[P.Index];
    const bool Chunked = P.NChunks > 1 && !P.FullDepth;
    if (!P.FromMid)
      for (int In : L.Inputs)
        if (In >= 0)
          U.Accesses.push_back({unsigned(In), Chunked ? P.Chunk : 0});
    const unsigned Og = P.IsConv && !P.Depthwise && !P.Elementwise ? P.ogChannels(G0) : P.Chunk;
    const bool Groups = P.IsConv && !P.Depthwise && !P.Elementwise ? P.NOg > 1 : Chunked;
    if (L.HasResidual && L.Residual >= 0)
      U.Accesses.push_back({unsigned(L.Residual), P.NOg > 1 ? P.ogChannels(G0) : 0});
    // A merged conv owns no tensor: its stores into its slices' tensors
    // are not counted (its own index is never placed).
    if (!P.areaOnly())
      U.Accesses.push_back({P.Index, Groups ? Og : 0});
  }
  return U;
}

/// What moving a view of channels [Off, Off + Len) in groups of Group
/// channels (0: whole pixels) costs a pixel, in bursts, at pixel stride
/// Stride of a tensor of C channels: whole pixels of the whole dense tensor
/// are one run (merged DMA rows); anything else a row a pixel and group.
double accessBursts(unsigned C, unsigned Stride, unsigned Off, unsigned Len, unsigned Group,
                    unsigned Burst) {
  if (Group == 0 || Group >= Len)
    return Off == 0 && Len == C && Stride == C ? double(C) / Burst
                                               : rowBursts(Stride, Off, Len, Burst);
  double Sum = 0;
  for (unsigned B = 0; B < Len; B += Group)
    Sum += rowBursts(Stride, Off + B, std::min(Group, Len - B), Burst);
  return Sum;
}

/// How many layers read layer I (a concat), where each loads it as a plain
/// conv's input region (Lowerer::loadRegion), the only loads that take a
/// concat's inputs from tensors of their own (LayerPlan::InPieces); 0 if
/// any does not.
unsigned regionReaders(const ir::Graph &G, const std::vector<LayerPlan> &Plans, size_t I) {
  unsigned N = 0;
  for (size_t R = 0; R < G.Layers.size(); ++R) {
    const ir::Layer &L = G.Layers[R];
    if (L.HasResidual && L.Residual == int(I))
      return 0;
    if (std::find(L.Inputs.begin(), L.Inputs.end(), int(I)) == L.Inputs.end())
      continue;
    if (L.Inputs.size() != 1)
      return 0;
    bool Planned = false;
    for (const LayerPlan &P : Plans)
      if (P.Index == R) {
        Planned = true;
        if (!P.IsConv || P.Depthwise || P.Elementwise || P.Dynamic || P.FromMid || P.ToMid ||
            P.ReadsWindow || P.Banked || P.CopyBanks || P.PerBank || P.Window.R ||
            P.L->In.C != L.In.C)
          return 0;
      }
    if (!Planned)
      return 0;
    ++N;
  }
  return N;
}

} // namespace

llvm::Expected<std::vector<TensorView>>
snow::compiler::placeTensors(const ir::Graph &G, const std::vector<LayerPlan> &Plans,
                             llvm::function_ref<uint64_t(uint32_t, uint32_t, uint32_t)> Place,
                             const isa::HwConfig &Hw, const CompileOptions &Opts,
                             std::vector<std::vector<OutPiece>> &Pieces,
                             std::vector<std::vector<OutPiece>> &InPieces) {
  const size_t N = G.Layers.size();
  const TensorUse Use = tensorUse(G, Hw, Plans);
  std::vector<int> Owner(N);
  std::vector<uint32_t> Off(N, 0);
  std::vector<bool> Sliced(N, false); // Read through slices only.
  std::vector<unsigned> Reads(N, 0), SliceReads(N, 0);
  for (size_t I = 0; I < N; ++I) {
    Owner[I] = int(I);
    const ir::Layer &L = G.Layers[I];
    std::vector<int> R = L.Inputs;
    if (L.HasResidual)
      R.push_back(L.Residual);
    for (int In : R)
      if (In >= 0) {
        ++Reads[size_t(In)];
        SliceReads[size_t(In)] += L.Kind == ir::LayerKind::Slice;
      }
  }
  for (size_t I = 0; I < N; ++I) {
    Sliced[I] = SliceReads[I] > 0;
    if (Sliced[I] &&
        (Reads[I] != SliceReads[I] || G.Layers[I].Kind != ir::LayerKind::Conv || I + 1 == N))
      return compileError(fmt::format("{}: layer '{}': a layer read through slices must be a conv "
                                      "read by nothing else",
                                      G.Layers[I].Loc.str(), G.Layers[I].Name));
  }
  for (size_t I = 0; I < N; ++I) {
    const ir::Layer &L = G.Layers[I];
    if (L.Kind != ir::LayerKind::Concat)
      continue;
    uint32_t C0 = 0;
    for (int In : L.Inputs) {
      if (In < 0)
        return compileError(fmt::format("{}: layer '{}': concatenating the graph input needs a "
                                        "copy, which the compiler does not do yet",
                                        L.Loc.str(), L.Name));
      if (Owner[In] != In || Sliced[size_t(In)])
        return compileError(fmt::format("{}: layer '{}': the output of '{}' already goes into "
                                        "another concat",
                                        L.Loc.str(), L.Name, G.Layers[In].Name));
      Owner[In] = int(I);
      Off[In] = C0;
      C0 += G.Layers[In].Out.C;
    }
  }
  // Concats laid out input by input (CompileOptions::BlockedConcats): where
  // that moves fewer bursts a pixel (by half a burst at least) and every
  // reader loads them as a plain region. Side by side, each input stores a
  // DMA row a pixel, whose runs may start or end inside bursts, and each
  // reader loads whole rows; input by input, each input stores whole rows
  // and each reader loads a DMA row a pixel of each input, whose rows
  // follow each other in DRAM and move as one run where the hardware
  // merges them (dma_merge_rows; without, zc706_paper's ShuffleNet v2 ran
  // 56 k cycles slower). Not a concat of concats, one read by the graph
  // (its output) or whole by an fc.
  std::vector<bool> Blocked(N, false);
  const unsigned Burst = Hw.DramBurstBytes / 2;
  for (size_t I = 0; Opts.BlockedConcats && Burst && I + 1 < N; ++I) {
    const ir::Layer &L = G.Layers[I];
    const unsigned Readers = L.Kind == ir::LayerKind::Concat && Owner[I] == int(I) && !Use.Whole[I]
                                 ? regionReaders(G, Plans, I)
                                 : 0;
    if (!Readers)
      continue;
    double Dense = Readers * double(L.Out.C) / Burst, Own = 0;
    bool Leaves = true;
    for (int In : L.Inputs) {
      const unsigned C = G.Layers[size_t(In)].Out.C;
      Leaves &= G.Layers[size_t(In)].Kind != ir::LayerKind::Concat;
      Dense += rowBursts(L.Out.C, Off[size_t(In)], C, Burst);
      Own += double(C) / Burst +
             Readers * (Hw.DmaMergeRows ? double(C) / Burst : rowBursts(C, 0, C, Burst));
    }
    if (!Leaves || Dense < Own + 0.5)
      continue;
    Blocked[I] = true;
    for (int In : L.Inputs)
      Owner[size_t(In)] = In, Off[size_t(In)] = 0;
  }
  auto RootOf = [&](size_t I) {
    while (Owner[I] != int(I))
      I = size_t(Owner[I]);
    return I;
  };
  auto OffsetOf = [&](size_t I) {
    uint32_t O = 0;
    for (; Owner[I] != int(I); I = size_t(Owner[I]))
      O += Off[I];
    return O;
  };
  // Padded pixels (CompileOptions::PadPixels; docs/compiler.md, step 11):
  // a tensor whose pixels are not whole bursts gets a stride of whole
  // bursts where its accesses then move fewer bursts a pixel. Not the
  // graph's output (the host reads it dense), a tensor of one pixel, or
  // one an fc reads whole (Use.Whole).
  std::vector<double> Dense(N, 0), Padded(N, 0);
  std::vector<bool> Pinned(N, false);
  for (size_t I = 0; I < N; ++I)
    Pinned[RootOf(I)] = Pinned[RootOf(I)] || Use.Whole[I];
  auto PaddedStride = [&](size_t R) { return roundUp(G.Layers[R].Out.C, Burst); };
  if (Opts.PadPixels && Burst)
    for (const TensorAccess &A : Use.Accesses) {
      const size_t R = RootOf(A.Layer);
      const unsigned C = G.Layers[R].Out.C, Off = OffsetOf(A.Layer), Len = G.Layers[A.Layer].Out.C;
      if (C % Burst == 0)
        continue;
      Dense[R] += accessBursts(C, C, Off, Len, A.Group, Burst);
      Padded[R] += accessBursts(C, PaddedStride(R), Off, Len, A.Group, Burst);
    }
  std::vector<uint64_t> Addr(N, 0);
  std::vector<uint32_t> Strides(N, 0);
  for (size_t I = 0; I < N; ++I)
    Strides[I] = G.Layers[I].Out.C;
  for (size_t I = 0; I < N; ++I)
    if (Owner[I] == int(I) && !Sliced[I] && !Blocked[I]) {
      const ir::Shape &S = G.Layers[I].Out;
      if (Padded[I] < Dense[I] && !Pinned[I] && I + 1 != N && uint64_t(S.H) * S.W > 1)
        Strides[I] = PaddedStride(I);
      Addr[I] = Place(Strides[I], S.H, S.W);
    }
  std::vector<TensorView> Views(N);
  for (size_t I = 0; I < N; ++I) {
    const size_t Root = RootOf(I);
    const ir::Shape &RootOut = G.Layers[Root].Out;
    Views[I] = {Addr[Root], G.Layers[I].Out.W, Strides[Root], OffsetOf(I),
                uint64_t(Strides[Root]) * RootOut.H * RootOut.W * 2};
  }
  // A blocked concat's view is no tensor's (nothing loads through it: its
  // readers take InPieces; an address no layer writes, so that nothing
  // takes it for one, RowSignals.cpp).
  InPieces.assign(N, {});
  for (size_t I = 0; I < N; ++I)
    if (Blocked[I]) {
      unsigned C0 = 0;
      for (int In : G.Layers[I].Inputs) {
        InPieces[I].push_back({C0, G.Layers[size_t(In)].Out.C, Views[size_t(In)]});
        C0 += G.Layers[size_t(In)].Out.C;
      }
      Views[I] = {~uint64_t(0), G.Layers[I].Out.W, G.Layers[I].Out.C, 0, 0};
    }
  Pieces.assign(N, {});
  for (size_t I = 0; I < N; ++I) {
    const ir::Layer &L = G.Layers[I];
    if (L.Kind == ir::LayerKind::Slice)
      Pieces[size_t(L.input())].push_back({L.SliceBegin, L.Out.C, Views[I]});
  }
  return Views;
}
