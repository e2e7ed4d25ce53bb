//===- FuseSplitTriple.cpp - A block of one tile on every CU at once ------===//
//
// A block triple (FuseBlocks.cpp) gives each CU a tile of its own. On a
// map small enough for one tile (a 7x7 stage) that leaves CUs idle, or
// cuts the map into tiles whose windows overlap. A split triple runs the
// whole map on every CU at once: round r gives CU c the expansion's output
// group c x R + r (R rounds), which it computes over the map's depthwise
// window into the area and the depthwise conv filters into slot r
// (LayerPlan::MidSlot); then the projection, its input channels split
// over the CUs (LayerPlan::Parts: CU c's chunks are its groups), runs an
// output group a round over the slots, and one vwb with sum adds the CUs'
// partial sums (cu_sum_writeback) into CU 0, which stores them (a
// residual goes into CU 0's accumulators only: Lowerer::loadResidual).
// Nothing of the block crosses the channel but its input, once, the
// weights, once, and its output. docs/compiler.md, step 9f ("Split
// triples").
//
//===----------------------------------------------------------------------===//

#include "Fuse.h"
#include "FuseTriple.h"
#include "FuseWindows.h"
#include "Rounds.h"
#include "WeightPack.h"
#include <algorithm>

using namespace snow;
using namespace snow::compiler;

namespace {

/// The split triple of expansion E, depthwise conv Q and projection P (the
/// file's comment), if one fits. A last group past the channels computes
/// the one before it again; its projection weights are zeros
/// (LayerPlan::kernelWords).
std::optional<Triple> bestSplitTriple(const LayerPlan &E, const LayerPlan &Q, const LayerPlan &P,
                                      const isa::HwConfig &Hw, const BufferMap &B,
                                      const CompileOptions &Opts) {
  const ir::Layer &QL = *Q.L, &PL = *P.L;
  const unsigned C = E.L->Out.C, NCu = Hw.cus(), Lanes = Hw.LanesPerVmac;
  const unsigned Gch = Hw.VmacsPerCu * Lanes;
  if (!Opts.SplitTriples || !Hw.CuSumWriteback || NCu < 2 || Q.isPool() || Q.Frames != 1)
    return std::nullopt;
  const unsigned Px = QL.Out.H * QL.Out.W, NOg = ceilDiv(C, Gch), Rounds = ceilDiv(NOg, NCu);
  // The projection's entries past those of the other two's bands, at
  // least a window row of them.
  if (NOg < NCu || 2 * Px > Hw.AccEntries)
    return std::nullopt;
  const unsigned AccBase = Hw.AccEntries - Px;
  // The slots at the area's end, the expansion's window before them.
  const uint64_t Slot = uint64_t(Px) * Gch;
  if (Rounds * Slot >= B.MidCap)
    return std::nullopt;
  const uint32_t MidOut = B.MidCap - uint32_t(Rounds * Slot);
  BufferMap EIn = B; // the expansion's input window: the first bank of either input region
  EIn.InCap = B.DwInCap;
  BufferMap Area = B;
  Area.InCap = MidOut;
  LayerPlan Qn = plainFusedPlan(Q, E.Index);
  Qn.FromMid = Qn.ReadsWindow = Qn.ToMid = true;
  Qn.MidOut = MidOut;
  Qn.MidSlot = uint32_t(Slot);
  Qn.AccLimit = AccBase;
  Qn.Chunk = Gch;
  Qn.NChunks = Qn.NOg = NOg;
  if (!setTile(Qn, QL.Out.H, QL.Out.W, Qn.pixelStride(0, Lanes), 0, Area) || Qn.NTiles != 1 ||
      Qn.ColsIn > AccBase)
    return std::nullopt;
  LayerPlan En = windowPlan(E, NOg);
  En.AccLimit = AccBase;
  // A round's expansion traces its input a chunk of a group's channels a
  // step (the window laid out full depth, loaded once), so that each step
  // loads only that chunk's blocks for the CUs, under the step before: a
  // round's blocks for every input channel at once (ShuffleNet v2's 232,
  // 119 KB) waited on the channel, which the layer before kept busy.
  // Chunks of one size (160 channels: 54, 54, 52): the next round's first
  // chunk's blocks load under this round's last chunk and depthwise conv,
  // and a short last chunk (64, 64, 32) left them waiting (MobileNet v2's
  // blocks 15 to 17 on zc706: 743 cycles a round, 8.0 k in all).
  if (E.L->In.C > Gch) {
    En.NChunks = ceilDiv(E.L->In.C, Gch);
    En.Chunk = ceilDiv(E.L->In.C, En.NChunks);
    En.FullDepth = true;
  }
  if (!traceProducerWay(En, 0, 0, Hw, B, Opts))
    return std::nullopt;
  // (Its window with the padding may not fit that bank: the whole input
  // region then, as a whole-map window pair's: FuseWindows.cpp.)
  if (En.FullDepth || !setTile(En, Qn.RowsIn, Qn.ColsIn, En.pixelStride(0, Lanes), 0, EIn)) {
    En.FullDepth = true;
    if (!Opts.WholeMapWindows || !setTile(En, Qn.RowsIn, Qn.ColsIn, En.pixelStride(0, Lanes), 0, B))
      return std::nullopt;
  }
  setWindow(En, Qn);
  En.Window.AreaCols = Qn.ColsIn;
  // The expansion's chunks accumulate over its steps: its window's pixels
  // in the map (a stride-2 depthwise conv's, 15x15, would need bands)
  // in the entries below the projection's.
  if (En.validRows(0) * En.validCols(0) > AccBase)
    return std::nullopt;
  LayerPlan Pn = plainFusedPlan(P, E.Index);
  Pn.FromMid = true;
  Pn.ToMid = Pn.ReadsWindow = Pn.StoresToo = Pn.PinWeights = Pn.WeightsOnce = false;
  Pn.PerBank = 0;
  Pn.MidOut = MidOut;
  Pn.MidSlot = uint32_t(Slot);
  Pn.MidPitch = Gch;
  Pn.AccBase = AccBase;
  Pn.Chunk = Gch;
  Pn.Parts = NCu;
  Pn.NChunks = Rounds * NCu;
  Pn.NOg = ceilDiv(PL.Out.C, Gch);
  Pn.OcBase = 0;
  Pn.OcCount = PL.Out.C;
  BufferMap Any = B; // the projection loads no maps
  Any.InCap = UINT32_MAX;
  setTile(Pn, QL.Out.H, QL.Out.W, Gch, 0, Any);
  En.Rounds.clear();
  Qn.Rounds.clear();
  Pn.Rounds.clear();
  for (unsigned R = 0; R < Rounds; ++R) {
    Round Re, Rq;
    // (A CU past the last group computes that group again: a round's CUs
    // keep one tile, so its window stays, and the projection's weights for
    // that slot are zeros.)
    for (unsigned Cu = 0; Cu < NCu; ++Cu)
      Re.Cus[Cu] = Rq.Cus[Cu] = Work{int(std::min(Cu * Rounds + R, NOg - 1)), 0};
    Re.ExtR = En.validRows(0);
    Re.ExtC = En.validCols(0);
    Rq.ExtR = Qn.validRows(0);
    Rq.ExtC = Qn.validCols(0);
    En.Rounds.push_back(Re);
    Qn.Rounds.push_back(Rq);
  }
  En.SplitChannels = Qn.SplitChannels = true;
  // Each round's depthwise blocks ride with the expansion's last chunk
  // (LayerPlan::CoWeights): the next round's first chunk then loads into
  // the other bank under both, not under the depthwise step alone.
  En.CoWeights = Opts.ColocatedWeights && Opts.DoubleBuffer && colocatesWeights(En, Qn, B.WCap);
  for (unsigned Og = 0; Og < Pn.NOg; ++Og) {
    Round Rp;
    for (unsigned Cu = 0; Cu < NCu; ++Cu)
      Rp.Cus[Cu] = Work{int(Og), 0};
    Rp.ExtR = Qn.validRows(0);
    Rp.ExtC = Qn.validCols(0);
    Pn.Rounds.push_back(Rp);
  }
  const Cost Ct = splitTripleCost(En, Qn, Pn, Hw);
  return Triple{std::move(En), std::move(Qn), std::move(Pn), Ct};
}

} // namespace

std::optional<Triple> snow::compiler::cachedSplitTriple(const LayerPlan &E, const LayerPlan &Q,
                                                        const LayerPlan &P, const isa::HwConfig &Hw,
                                                        const BufferMap &B,
                                                        const CompileOptions &EOpts) {
  return recallTriple(E, Q, P, Hw, EOpts, "split",
                      [&] { return bestSplitTriple(E, Q, P, Hw, B, EOpts); });
}
