//===- FeedNext.cpp - A conv's output written on chip for the conv after it -===//
//
// MobileNet v2's 14x14 blocks end in a projection whose four CUs each hold
// one 7x7 tile; the next block's expansion, a 1x1 conv on the same four
// tiles, stored it and loaded it straight back: its first step waited for
// the projection's last stores and then for its own maps (3.8 k cycles a
// block). Here the projection's writeback of each output group also goes
// into the input region of the expansion's first step, laid out as in its
// output region (pixel (r, c) at (r x ExtC + c) x the group's channels,
// a pixel pair an entry where it traces two), group after group; the
// expansion's traces read a pixel's channels there as the groups' runs
// (vmac rows = groups, bstride = a group's span), in channel order, so its
// weights are packed as for any full-depth 1x1 conv. The output is still
// stored (the block's residual and other readers read it from DRAM).
//
// Synchronization: the 1x1 conv's first step loads nothing. The load unit
// still takes the region (an InFree wait without a load, as a full-depth
// pair takes its area: Step::TakeMid), so the region's next load waits for
// the 1x1 conv's own InFree; the compute unit, in order, has written the
// region before tracing it, and its last reader before writing it. The
// 1x1 conv waits for no LayerDone or rows of the conv before it (the
// next layer's first load consumes that LayerDone), and does not start on
// its rows (RowSignals.cpp), which would leave RowsDone signals no step
// consumes.
//
// Where the next conv reads windows around the tiles (a block triple's
// expansion, computing its depthwise conv's 9x9 windows of 7x7 tiles, or
// a full-depth depthwise producer of a pair), each CU's tile goes to its
// place in the CU's window, and the window's load brings only the rows and
// columns around it (Step::OwnAt), after the stores it reads as before.
//
//===----------------------------------------------------------------------===//

#include "FeedNext.h"
#include "Lowerer.h"
#include "snow/isa/Timing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Error.h"
#include <utility>

using namespace snow;
using namespace snow::compiler;

namespace {

/// The tile each CU of plan P works on in every round, or an empty vector
/// where a round leaves a CU idle or gives it another tile.
std::vector<int> fixedTiles(const LayerPlan &P, unsigned NCu) {
  std::vector<int> Tiles(NCu, -1);
  for (const Round &Rd : P.Rounds)
    for (unsigned Cu = 0; Cu < NCu; ++Cu) {
      const Work &W = Rd.Cus[Cu];
      if (!W.active() || (Tiles[Cu] >= 0 && Tiles[Cu] != W.Tile))
        return {};
      Tiles[Cu] = W.Tile;
    }
  return P.Rounds.empty() ? std::vector<int>() : Tiles;
}

/// The elements of one output group of plan P's tile in its output region
/// (its first round's extent, pixel pairs or pixels an entry).
uint32_t slabSpan(const LayerPlan &P, const isa::HwConfig &Hw) {
  const Round &PR = P.Rounds.front();
  return PR.ExtR * PR.ExtC * ((Hw.VmacsPerCu * Hw.LanesPerVmac) >> P.PixLog);
}

} // namespace

/// Whether conv plan P writes whole output groups of its own tensor, one
/// group for every CU a round, each CU on one tile (PT), rounds of one
/// extent: a pixel an entry, or (Pairs) a pixel pair.
static bool writesWholeGroups(const LayerPlan &P, const isa::HwConfig &Hw, bool Pairs,
                              std::vector<int> &PT) {
  const unsigned NCu = Hw.cus(), G = Hw.VmacsPerCu * Hw.LanesPerVmac;
  if (!P.IsConv || P.Depthwise || P.Parts > 1 || !P.FirstPart || !P.LastPart || P.ToMid ||
      P.OutIsSlice || !P.Pieces.empty() || P.Frames != 1 || P.writesBanked() || P.writesPhases() ||
      P.PoolBlock || P.Wide || P.OcBase || P.Window.R || (P.PixLog && !Pairs))
    return false;
  const unsigned OgCh = G >> P.PixLog;
  if (P.ogChannels(G) != OgCh || P.NOg * OgCh != P.L->Out.C)
    return false;
  const Round &PR = P.Rounds.front();
  for (const Round &Rd : P.Rounds) {
    if (Rd.ExtR != PR.ExtR || Rd.ExtC != PR.ExtC)
      return false;
    for (unsigned Cu = 0; Cu < NCu; ++Cu)
      if (Rd.Cus[Cu].Og != int(Rd.firstOg()))
        return false;
  }
  PT = fixedTiles(P, NCu);
  return !PT.empty();
}

/// Whether conv plan Q reads exactly the tensor conv plan P writes, whole
/// pixels, loading its maps once, and reads nothing newer.
static bool readsWholeOutput(const LayerPlan &P, const LayerPlan &Q) {
  const ir::Layer &L = *Q.L;
  return Q.IsConv && !Q.Depthwise && L.Groups == 1 && L.KH == 1 && L.KW == 1 && L.SH == 1 &&
         L.SW == 1 && !L.PadT && !L.PadL && !L.HasResidual && L.Inputs.size() == 1 && !Q.FromMid &&
         !Q.ReadsWindow && Q.BesideOf < 0 && !Q.Elementwise && !Q.Dynamic && !Q.PerBank &&
         !Q.readsBanked() && !Q.Banked && !Q.CopyBanks && !Q.Wide && !Q.InSkew && Q.Parts <= 1 &&
         Q.FirstPart && Q.LastPart && Q.Frames == 1 && Q.NChunks == 1 && Q.In.Addr == P.Out.Addr &&
         Q.In.dense(L.In.C) && L.In.C == P.L->Out.C && Q.NeedsDone == P.Ordinal;
}

bool snow::compiler::feedsOnChip(const LayerPlan &P, const LayerPlan &Q, const isa::HwConfig &Hw) {
  const unsigned NCu = Hw.cus();
  std::vector<int> PT;
  if (!writesWholeGroups(P, Hw, true, PT) || !readsWholeOutput(P, Q) || Q.ToMid || Q.Window.R ||
      Q.PixLog)
    return false;
  // Every CU on one tile, the same in both, over the same pixels.
  if (PT != fixedTiles(Q, NCu))
    return false;
  for (int T : PT) {
    const unsigned U = unsigned(T);
    if (P.tileY0(U) != Q.tileY0(U) || P.tileX0(U) != Q.tileX0(U) ||
        P.validRows(U) != Q.validRows(U) || P.validCols(U) != Q.validCols(U))
      return false;
  }
  const Round &PR = P.Rounds.front();
  for (const Round &Rd : Q.Rounds)
    if (Rd.ExtR != PR.ExtR || Rd.ExtC > PR.ExtC)
      return false;
  auto B = makeBufferMap(Hw);
  if (!B) {
    llvm::consumeError(B.takeError());
    return false;
  }
  const uint64_t Span = slabSpan(P, Hw);
  return Span * P.NOg <= B->InCap && Span < (1u << 20); // vmac's bstride
}

bool snow::compiler::feedsWindow(const LayerPlan &P, const LayerPlan &Q, const isa::HwConfig &Hw,
                                 bool OnRows, Step &QFirst) {
  const unsigned NCu = Hw.cus(), G = Hw.VmacsPerCu * Hw.LanesPerVmac;
  const ir::Layer &L = *Q.L;
  std::vector<int> PT;
  if (!writesWholeGroups(P, Hw, false, PT))
    return false;
  // Q: a window producer (FuseWindows.cpp) whose one region of whole
  // pixels holds each CU's window, round after round, not started on rows
  // (its region's loads wait for the conv's LayerDone); or a full-depth
  // depthwise producer of a fused pair whose region holds its chunks bank
  // by bank (LayerPlan::PerBank), each of them P's output group.
  const bool Window = Q.Window.R && !OnRows && readsWholeOutput(P, Q) &&
                      Q.pixelStride(0, Hw.LanesPerVmac) == L.In.C;
  // (Those save channel time only, so not where the copies' writebacks
  // hold the compute unit: zc706_paper's MobileNet v1 pointwise convs ran
  // 2.7 k cycles longer each, their depthwise convs 0.6 k shorter; nor,
  // below, where the channel has room.)
  const bool Chunks = Hw.WritebackOverlap && Q.Depthwise && Q.ToMid && Q.FullDepth && Q.PerBank &&
                      !Q.FromMid && !Q.PixLog && !Q.readsHalves() && !Q.readsQuarters() &&
                      !Q.CopyBanks && !Q.readsBanked() && !Q.InSkew && Q.Parts <= 1 &&
                      Q.FirstPart && Q.LastPart && Q.Frames == 1 && !L.HasResidual &&
                      L.Inputs.size() == 1 && Q.Chunk == G && Q.NChunks == P.NOg &&
                      Q.pixelStride(0, Hw.LanesPerVmac) == G && Q.In.Addr == P.Out.Addr &&
                      Q.In.dense(L.In.C) && L.In.C == P.L->Out.C && Q.NeedsDone == P.Ordinal;
  if ((!Window && !Chunks) || Q.StepX != 1 || Q.StepY != 1)
    return false;
  const std::vector<int> QT = fixedTiles(Q, NCu);
  const bool Whole = Q.Rounds.front().wholeWindows();
  if (QT.empty() ||
      llvm::any_of(Q.Rounds, [&](const Round &Rd) { return Rd.wholeWindows() != Whole; }))
    return false;
  // Each CU's tile, whole rounds of it, inside its window's pixels in the
  // map.
  const Round &PR = P.Rounds.front();
  std::vector<std::array<unsigned, 4>> Own(NCu);
  uint64_t WindowBytes = 0;
  for (unsigned Cu = 0; Cu < NCu; ++Cu) {
    const unsigned T = unsigned(PT[Cu]);
    if (P.validRows(T) != PR.ExtR || P.validCols(T) != PR.ExtC)
      return false;
    const TileGeom W = geometry(Q, QT[Cu], Whole);
    const int Y = int(P.tileY0(T)) - W.IY0, X = int(P.tileX0(T)) - W.IX0;
    if (Y < int(W.Y0) || X < int(W.X0) || Y + PR.ExtR > W.Y1 || X + PR.ExtC > W.X1)
      return false;
    Own[Cu] = {unsigned(Y), unsigned(X), PR.ExtR, PR.ExtC};
    WindowBytes += uint64_t(W.Y1 - W.Y0) * (W.X1 - W.X0) * L.In.C * 2;
  }
  // Not where the channel has room under P's estimate for its bytes and
  // Q's whole windows, where the chunks' loads a bank at a time only come
  // in later (MobileNet v1's conv9 to conv12 pairs, 10 % of their
  // pointwise convs' estimates: zc706 at 12.8 GB/s 0.23 points slower,
  // zc706 2.8 k cycles faster).
  if (Chunks && timing::dmaChannelCycles(Hw, P.EstDramBytes + WindowBytes) < P.EstCycles)
    return false;
  QFirst.OwnAt = std::move(Own);
  // A pixel's output group g: its channels in the pixel, or chunk g's
  // place (LayerPlan::chunkOffset).
  QFirst.FeedStride = Window ? L.In.C : G;
  QFirst.FeedPitch = Q.ColsIn * QFirst.FeedStride;
  QFirst.FeedSpan = Window ? G : 0;
  // Started on channels, a chunk's loads wait for its group's stores, and
  // the compute unit writes the next groups' tiles meanwhile: the chunks of
  // a bank load together, after the last of them is stored, so that no
  // unit writes a bank the other is writing (the compute unit's writes
  // come before their group's stores, the load unit's after). (Kept if
  // feedSteps then finds the region taken: later, but as correct.)
  if (Chunks && !QFirst.ChunkAt.empty()) {
    auto &At = QFirst.ChunkAt;
    auto &Waits = QFirst.ChunkWaits;
    Waits.resize(At.size(), 0);
    for (size_t C = 0; C < At.size(); C += Q.PerBank) {
      const size_t E = std::min(C + Q.PerBank, At.size()) - 1;
      unsigned Sum = 0;
      for (size_t K = C; K <= E; ++K)
        Sum += std::exchange(Waits[K], 0u), At[K] = At[E];
      Waits[C] = Sum;
    }
  }
  return true;
}

void snow::compiler::markFed(std::vector<Step> &QSteps, const LayerPlan &P,
                             const isa::HwConfig &Hw) {
  const unsigned OgCh = (Hw.VmacsPerCu * Hw.LanesPerVmac) >> P.PixLog;
  const Round &PR = P.Rounds.front();
  for (Step &S : QSteps) {
    S.Fed = true;
    S.FedCols = PR.ExtC;
    S.FedW = OgCh;
    S.FedSlabs = P.NOg;
    S.FedSpan = slabSpan(P, Hw);
  }
}

bool snow::compiler::feedSteps(std::vector<Step> &Steps, const LayerPlan &P, size_t PFrom,
                               size_t QAt) {
  const unsigned Region = Steps[QAt].InBuf;
  size_t FirstWrite = QAt;
  for (size_t K = PFrom; K < QAt; ++K)
    if (Steps[K].P == &P && Steps[K].Writes) {
      FirstWrite = K;
      break;
    }
  // Nothing may hold maps in the region from P's first writeback on: no
  // step's own maps (a 1x1 reader of a pair reads its area instead), no
  // fused pair's area.
  bool Free = FirstWrite < QAt && Steps[QAt].NewMap;
  for (size_t K = FirstWrite; Free && K < QAt; ++K) {
    const Step &S = Steps[K];
    const bool Area = S.P->FromMid || S.P->ToMid;
    // (A straddling area holds both regions: Step::FreeOther, TakeOther.)
    Free = (S.P->FromMid || S.InBuf != Region) && (!Area || S.MidBuf != Region) &&
           !(Area && S.P->Straddles) && !S.FreeOther && !S.TakeOther && !S.SharesRegion;
  }
  if (!Free) {
    Steps[QAt].OwnAt.clear();
    for (size_t K = QAt; K < Steps.size() && Steps[K].P == Steps[QAt].P; ++K)
      Steps[K].Fed = false;
    return false;
  }
  // A window's: each CU's tile at its place (CUs of one place, one vwb).
  const Step &Q = Steps[QAt];
  std::vector<std::pair<uint32_t, uint32_t>> At;
  for (unsigned Cu = 0; Cu < Q.OwnAt.size(); ++Cu) {
    const uint32_t Off = Q.OwnAt[Cu][0] * Q.FeedPitch + Q.OwnAt[Cu][1] * Q.FeedStride;
    auto It = llvm::find_if(At, [&](auto &E) { return E.first == Off; });
    if (It == At.end())
      At.push_back({Off, 1u << Cu});
    else
      It->second |= 1u << Cu;
  }
  for (size_t K = FirstWrite; K < QAt; ++K)
    if (Steps[K].P == &P && Steps[K].Writes) {
      Steps[K].FeedBuf = int(Region);
      Steps[K].FeedSpan = Q.OwnAt.empty() ? Q.FedSpan : Q.FeedSpan;
      Steps[K].FeedTo = Q.P;
      if (!At.empty()) {
        Steps[K].FeedAt = At;
        Steps[K].FeedPitch = Q.FeedPitch;
        Steps[K].FeedStride = Q.FeedStride;
      }
    }
  return true;
}
