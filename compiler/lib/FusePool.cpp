//===- FusePool.cpp - A conv fused with the pool that alone reads it -------===//
//
// The first conv of many classic networks (SqueezeNet's, GoogLeNet's,
// AlexNet's) writes a large map that only a max pool reads: on zc706
// SqueezeNet 1.1's conv1 spends more of its time storing its 111x111x64
// output than multiplying, and pool1 as long again reading it back. Fused,
// each CU computes the conv's output over the input window of one pool tile
// and writes it back into the area (BufferMap::MidOffset), where the pool's
// windows read it; only the pool's output is stored:
//
//   for each group of CUs' tiles: load the conv's input window of the tile
//     (the first bank of an input region), trace it (in bands of whole rows
//     that fit the accumulators), write back into the area; then the pool
//     over the area, written back and stored as any pool.
//
// Neighbouring pool tiles' windows overlap by the pool's kernel less its
// stride: those conv rows and columns are computed twice
// (LayerPlan::Window), so large tiles pay. The steps are a fused pair's
// (Sequence.cpp: the producer ToMid, the pool FromMid), with the pair's area
// and semaphores; the cost model (windowPairCost) weighs the pair against
// the two layers apart.
//
//===----------------------------------------------------------------------===//

#include "Cost.h"
#include "Fuse.h"
#include "Rounds.h"
#include "snow/isa/Timing.h"
#include <optional>

using namespace snow;
using namespace snow::compiler;

namespace {

/// Whether plan D is a conv that can compute a pool's windows into the
/// area: dense, one output group of the machine's width, one channel chunk,
/// its own plan, no residual.
bool windowProducer(const LayerPlan &D, const isa::HwConfig &Hw, const BufferMap &B) {
  const ir::Layer &L = *D.L;
  const unsigned G = Hw.VmacsPerCu * Hw.LanesPerVmac;
  return D.IsConv && !D.Depthwise && !D.Elementwise && !D.GroupChunks && !D.Dynamic && !D.ToMid &&
         !D.FromMid && D.FirstPart && D.LastPart && !D.OutIsSlice && D.BesideOf < 0 &&
         L.Groups == 1 && !L.HasResidual && L.Out.C == G &&
         L.KH * L.KW * L.In.C + D.TailWords <= B.WCap;
}

/// Whether plan Q is a max or average pool that can read conv D's output
/// from the area: no padding, and (no ceil mode) every window inside the
/// map, as the conv computes nothing else.
bool windowConsumer(const LayerPlan &Q, const LayerPlan &D) {
  const ir::Layer &L = *Q.L;
  return Q.isPool() && Q.FirstPart && Q.LastPart && !Q.ToMid && !Q.FromMid &&
         Q.Frames == D.Frames && L.input() == int(D.Index) && L.In.C == D.L->Out.C && !L.PadT &&
         !L.PadB && !L.PadL && !L.PadR && (L.Out.H - 1) * L.SH + L.KH <= L.In.H &&
         (L.Out.W - 1) * L.SW + L.KW <= L.In.W;
}

/// How many layers of G read layer I's output as dense stride-1 1x1 convs
/// (what a fused pair's consumer is, Fuse.cpp).
unsigned pointwiseReaders(const ir::Graph &G, unsigned I) {
  unsigned N = 0;
  for (const ir::Layer &L : G.Layers)
    N += L.Kind == ir::LayerKind::Conv && L.input() == int(I) && L.Groups == 1 && L.KH == 1 &&
         L.KW == 1 && L.SH == 1 && L.SW == 1 && !L.PadT && !L.PadB && !L.PadL && !L.PadR;
  return N;
}

} // namespace

void snow::compiler::fuseConvPools(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                                   const CompileOptions &Opts, std::vector<LayerPlan> &Plans) {
  if (!Opts.FuseConvPools || !Opts.DoubleBuffer || !B.MidCap)
    return;
  const std::vector<unsigned> Readers = readerCounts(G);
  const unsigned NCu = Hw.cus(), Lanes = Hw.LanesPerVmac;
  BufferMap DIn = B; // the conv's window: the first bank of either input region
  DIn.InCap = B.DwInCap;
  // The pool right after the conv in program order (the pool beside it
  // included): nothing runs between the two halves of a pair.
  for (size_t K = 0; K + 1 < Plans.size(); ++K) {
    const LayerPlan &D = Plans[K], &Q = Plans[K + 1];
    if (!windowProducer(D, Hw, B) || Readers[D.Index] != 1 || !windowConsumer(Q, D))
      continue;
    const ir::Layer &DL = *D.L, &QL = *Q.L;
    const unsigned C = DL.Out.C;
    // Apart: the conv, and the pool as planned (beside the conv, its
    // windows only). A pool read only by 1x1 convs may fuse with them
    // instead (Fuse.cpp), which saves at most its output's round trip
    // through DRAM: fused here it cannot, so that counts against this pair
    // (a 3x3 average pool of stride 1 before a 1x1 conv computes most conv
    // rows three times here, and loses).
    uint64_t Apart = D.EstCycles + (Q.BesideOf == int(D.Index) ? besideCost(Q, Hw) : Q.EstCycles);
    if (Readers[Q.Index] > 0 && Readers[Q.Index] == pointwiseReaders(G, Q.Index))
      Apart -=
          std::min(Apart, timing::dmaChannelCycles(Hw, 4 * uint64_t(Q.Frames) * QL.Out.elems()));
    std::optional<std::pair<LayerPlan, LayerPlan>> Best;
    Cost BestCost;
    // Pool tiles whose windows fit the area, a row of them the accumulators.
    for (auto [Rq, Wq] : tileShapes(QL.Out.H, QL.Out.W, QL.Out.H * QL.Out.W)) {
      const unsigned Rd = (Rq - 1) * QL.SH + QL.KH, Wd = (Wq - 1) * QL.SW + QL.KW;
      if (uint64_t(Rd) * Wd * C > B.MidCap || Wd > Hw.AccEntries ||
          uint64_t(Rq) * Wq * roundUp(C, Lanes) > B.OutCap)
        continue;
      LayerPlan Dn = D;
      Dn.PixLog = 0;
      Dn.Wide = Dn.Banked = Dn.FullDepth = false;
      Dn.Balanced = Dn.SplitChannels = false;
      Dn.MapStationary = true;
      Dn.StepY = Dn.StepX = 1;
      Dn.NOg = 1;
      Dn.OcBase = 0;
      Dn.OcCount = C;
      Dn.Chunk = DL.In.C;
      Dn.NChunks = 1;
      Dn.ToMid = true;
      Dn.FusedWith = int(D.Index);
      Dn.ShareOffset = 0;
      Dn.RestTiles = false;
      if (!setTile(Dn, Rd, Wd, Dn.pixelStride(0, Lanes), 0, DIn))
        continue;
      Dn.Window = {Rq, Wq, QL.KH, QL.KW, QL.SH, QL.SW, QL.Out.H, QL.Out.W};
      Dn.NRowBlocks = ceilDiv(QL.Out.H, Rq);
      Dn.NColBlocks = ceilDiv(QL.Out.W, Wq);
      Dn.NTiles = Dn.NRowBlocks * Dn.NColBlocks * Dn.Frames;
      LayerPlan Qn = Q;
      Qn.FromMid = true;
      Qn.FusedWith = int(D.Index);
      Qn.BesideOf = -1;
      Qn.ShareOffset = 0;
      Qn.FullDepth = Qn.Banked = false;
      Qn.StepY = Qn.StepX = 1;
      Qn.Chunk = C;
      Qn.NChunks = 1;
      Qn.MapStationary = true;
      setTile(Qn, Rq, Wq, 0, 0, B); // Qn reads the area, not a region.
      makeRounds(Dn, NCu, Packing::Tiles);
      makeRounds(Qn, NCu, Packing::Tiles);
      const Cost Ct = windowPairCost(Dn, Qn, Hw);
      if (Ct < BestCost) {
        BestCost = Ct;
        Best.emplace(std::move(Dn), std::move(Qn));
      }
    }
    if (!Best || BestCost.Cycles >= Apart)
      continue;
    auto &[Dn, Qn] = *Best;
    std::vector<uint64_t> Shares;
    windowPairCost(Dn, Qn, Hw, &Shares);
    Dn.EstCycles = Shares[0];
    Dn.EstDramBytes = BestCost.Bytes;
    Qn.EstCycles = Shares[1];
    Qn.EstDramBytes = 0; // all counted on the conv
    Plans[K] = std::move(Dn);
    Plans[K + 1] = std::move(Qn);
    ++K;
  }
}
