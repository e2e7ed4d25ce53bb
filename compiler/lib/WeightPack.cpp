//===- WeightPack.cpp - Conv weights laid out and packed into the image ---===//
//
// Split from Compiler.cpp (the driver): layout first, so the image is sized
// once, then the blocks filled in parallel.
//
//===----------------------------------------------------------------------===//

#include "WeightPack.h"
#include "Rounds.h"
#include "snow/support/Parallel.h"
#include <algorithm>
#include <cassert>
#include <cstring>

using namespace snow;
using namespace snow::compiler;

namespace {

uint64_t alignTo(uint64_t V, uint64_t A) { return (V + A - 1) / A * A; }

/// Lays out the weight blocks of a conv layer in the data image, which ends
/// at Size bytes so far: block (og, chunk, vmac) holds one word per kernel
/// tap, followed in chunk 0 (or every depthwise block) by the bias word (and
/// in block 0 of a group, the one vlut reads, the activation table), and
/// starts on a DRAM burst. Fills the plan's WAddr / WWords and appends the
/// blocks to Blocks, for fillBlock to write. Laying out first lets the image
/// be sized once and the blocks filled in parallel, which matters for
/// VGG-16's 138 M weights.
void layoutLayer(LayerPlan &P, const isa::HwConfig &Hw, uint64_t DataAddr, uint64_t &Size,
                 std::vector<WeightBlock> &Blocks) {
  const unsigned V = Hw.VmacsPerCu, Sub = P.subBlocks(V);
  P.WAddr.assign(size_t(P.NOg) * P.NChunks * Sub, 0);
  P.WWords.assign(P.WAddr.size(), 0);
  for (unsigned Og = 0; Og < P.NOg; ++Og)
    for (unsigned C = 0; C < P.NChunks; ++C) {
      if (P.Depthwise && C != Og)
        continue; // Group Og only ever meets chunk Og.
      auto [C0, C1] = P.ogChunks(Og);
      if (P.Parts > 1)
        C1 = P.NChunks; // every CU's chunks
      if (C < C0 || C >= C1)
        continue; // GroupChunks: not one of Og's chunks.
      for (unsigned S = 0; S < Sub; ++S) {
        Size = alignTo(Size, Hw.DramBurstBytes);
        unsigned K = P.wIndex(Og, C, S, V);
        P.WAddr[K] = DataAddr + Size;
        P.WWords[K] = P.kernelWords(C) + (P.tailedChunk(C, Og) ? P.tailWords(S) : 0);
        Blocks.push_back({&P, Og, C, S, Size});
        Size += uint64_t(P.WWords[K]) * 2 * Hw.LanesPerVmac;
      }
    }
}

/// After the bias word: the layer's activation table, LutEntries values in
/// order, Lanes to a word (the last word zero-padded), which vlut copies
/// from vMAC 0's words into every CU's table.
void tableWords(const ir::Layer &L, uint8_t *Out) {
  for (size_t E = 0; E < L.QLut.size(); ++E) {
    const uint16_t X = uint16_t(L.QLut[E]);
    Out[2 * E] = uint8_t(X);
    Out[2 * E + 1] = uint8_t(X >> 8);
  }
  // The last word's padding is already zero: the image starts zero-filled.
}

/// Writes one block laid out by layoutWeights at Out: for every kernel tap
/// (ky, kx, input channel of the chunk), one word of `lanes` int16 weights
/// of consecutive output channels, then the bias word if the block has one.
/// A depthwise block holds one word per tap (lane l filters channel
/// og*G + v*lanes + l).
void fillBlock(const WeightBlock &B, const isa::HwConfig &Hw, uint8_t *Out) {
  const LayerPlan &P = *B.P;
  const ir::Layer &L = *P.L;
  uint8_t *const Start = Out;
  const unsigned Lanes = Hw.LanesPerVmac, G = Hw.VmacsPerCu * Lanes;
  const unsigned Cin = L.In.C, Cout = L.Out.C;
  // Grouped (not depthwise) convolutions run as dense ones whose cross-group
  // weights are zero: correct on this dataflow, at the cost of idle
  // multiplies, which the utilization shows.
  const unsigned InPerGroup = Cin / L.Groups, OutPerGroup = Cout / L.Groups;
  // Multi-pixel plans have one block per vMAC of a pixel group: the groups'
  // vMACs load the same blocks.
  // Wide plans have a block per vMAC: vMAC S is word S % PerPixel of pixel
  // group S / PerPixel, whose kernel starts Shift columns into the row.
  const unsigned PerPixel = Hw.VmacsPerCu >> P.PixLog;
  const unsigned Word0 = P.Wide ? B.S % PerPixel : B.S;
  const unsigned Shift = P.Wide ? B.S / PerPixel * P.bufStrideX() : 0;
  const unsigned OgCh = P.ogChannels(G), OcEnd = P.OcBase + P.OcCount;
  // A depthwise conv's output group is its chunk (Lowerer::outputSlice).
  const unsigned O0 = P.OcBase + B.Og * (P.Depthwise ? P.Chunk : OgCh) + Word0 * Lanes;
  const unsigned C0 = P.chunkBegin(B.C), Cn = P.chunkSize(B.C, Cin);
  const size_t KK = size_t(L.KH) * L.KW;
  // Deferred weights (a dense conv's, see ir::quantize): a lane's weights of
  // this chunk, (ci, ky, kx) in order, are one run of draws, drawn and
  // rounded here, so the model's integer weights are never held either.
  const bool Deferred = L.packerDrawsWeights();
  // Kept from block to block: thousands of blocks would allocate them anew.
  thread_local std::vector<float> F;
  thread_local std::vector<int16_t> Drawn;
  if (Deferred) {
    const size_t Run = Cn * KK;
    F.resize(std::max(F.size(), Run));
    Drawn.resize(std::max(Drawn.size(), Lanes * Run));
    for (unsigned Lane = 0; Lane < Lanes && O0 + Lane < OcEnd; ++Lane) {
      L.Seeded->draw((size_t(O0 + Lane) * Cin + C0) * KK, Run, F.data());
      ir::toFixedInto(F.data(), &Drawn[Lane * Run], Run, L.WFrac);
    }
  }
  // The general loop's weights (deferred ones take the dense loop below).
  auto Weight = [&](unsigned O, unsigned Ci, unsigned Ky, unsigned Kx) -> int16_t {
    if (L.Groups > 1 && Ci / InPerGroup != O / OutPerGroup)
      return 0;
    return L.QWeights[((size_t(O) * InPerGroup + Ci % InPerGroup) * L.KH + Ky) * L.KW + Kx];
  };
  // One weight word: lane l holds Value(output channel of lane l).
  auto Word = [&](auto Value) {
    for (unsigned Lane = 0; Lane < Lanes; ++Lane) {
      unsigned O = O0 + Lane;
      uint16_t X = O < OcEnd ? uint16_t(Value(O)) : 0;
      Out[2 * Lane] = uint8_t(X);
      Out[2 * Lane + 1] = uint8_t(X >> 8);
    }
    Out += 2 * Lanes;
  };
  // The bias word, then the activation table where the block carries it
  // (LayerPlan::tailWords: block 0 of a group, which vlut reads).
  auto Tail = [&] {
    // (LayerPlan::Parts: the CUs' sums are added; one carries the bias.)
    const bool Bias = P.Parts == 1 || B.C == 0;
    Word([&](unsigned O) { return Bias ? L.QBias[O] : int16_t(0); });
    if (P.tailWords(B.S) > 1)
      tableWords(L, Out);
  };
  if (P.Depthwise && P.GroupK > 1) {
    // Grouped conv on vdw: pass p's lane for output channel O meets input
    // channel O + p - (K - 1), its i-th of the group's K, or another group's
    // (weight 0).
    const unsigned K = P.GroupK;
    for (unsigned Pass = 0; Pass < P.passes(); ++Pass)
      for (unsigned Ky = 0; Ky < L.KH; ++Ky)
        for (unsigned Kx = 0; Kx < L.KW; ++Kx)
          Word([&](unsigned O) -> int16_t {
            int I = int(O % K) + int(Pass) - int(K - 1);
            if (I < 0 || I >= int(K))
              return 0;
            return L.QWeights[((size_t(O) * K + unsigned(I)) * L.KH + Ky) * L.KW + Kx];
          });
    Tail();
    return;
  }
  if (!P.Depthwise && (Deferred || L.Groups == 1)) {
    // Dense weights: weight (O, Ci, Ky, Kx) is Src[(O - O0) * LaneStride +
    // (Ci - C0) * KK + Ky * KW + Kx], and a word takes one from each valid
    // lane. The same words as the general loop below, without its per-lane
    // tests (this loop packs VGG-16's 138 M weights on every compile).
    const unsigned Valid = O0 < OcEnd ? std::min(Lanes, OcEnd - O0) : 0;
    const int16_t *Src = nullptr;
    size_t LaneStride = 0;
    if (Valid && Deferred) {
      Src = Drawn.data();
      LaneStride = Cn * KK;
    } else if (Valid) {
      Src = &L.QWeights[(size_t(O0) * Cin + C0) * KK];
      LaneStride = Cin * KK;
    }
    const size_t WordBytes = 2 * size_t(Lanes);
    for (unsigned Ky = 0; Ky < L.KH; ++Ky)
      for (unsigned Col = 0; Col < P.traceCols(); ++Col, Out += Cn * WordBytes) {
        // A wide trace's columns outside the kernel stay zero (the image
        // starts zero-filled).
        if (!Valid || Col < Shift || Col - Shift >= L.KW)
          continue;
        const int16_t *Tap = Src + Ky * L.KW + (Col - Shift);
        for (unsigned Lane = 0; Lane < Valid; ++Lane) {
          const int16_t *From = Tap + Lane * LaneStride;
          uint8_t *To = Out + 2 * Lane;
          for (unsigned Ci = 0; Ci < Cn; ++Ci, From += KK, To += WordBytes) {
            const uint16_t X = uint16_t(*From);
            To[0] = uint8_t(X);
            To[1] = uint8_t(X >> 8);
          }
        }
      }
  } else if (P.readsHalves()) {
    // Its even kernel columns, row by row, then its odd ones (a trace each:
    // Lowerer::convLoop).
    for (unsigned Odd = 0; Odd < 2; ++Odd)
      for (unsigned Ky = 0; Ky < L.KH; ++Ky)
        for (unsigned Col = Odd; Col < L.KW; Col += 2)
          Word([&](unsigned O) { return L.QWeights[(size_t(O) * L.KH + Ky) * L.KW + Col]; });
  } else if (P.readsQuarters()) {
    // For the entries of each bank Side (Lowerer::convLoop), its runs of
    // kernel columns (LayerPlan::quarterRun), each row by row.
    for (unsigned Side = 0; Side < 4; ++Side) {
      const unsigned Run0 = LayerPlan::quarterRun(L.KW, Side);
      for (unsigned Run = 0; Run < 2; ++Run)
        for (unsigned Ky = 0; Ky < L.KH; ++Ky)
          for (unsigned Col = Run ? Run0 : 0; Col < (Run ? L.KW : Run0); ++Col)
            Word([&](unsigned O) { return L.QWeights[(size_t(O) * L.KH + Ky) * L.KW + Col]; });
    }
  } else {
    for (unsigned Ky = 0; Ky < L.KH; ++Ky)
      for (unsigned Col = 0; Col < P.traceCols(); ++Col) {
        if (P.Depthwise) {
          Word([&](unsigned O) { return L.QWeights[(size_t(O) * L.KH + Ky) * L.KW + Col]; });
          continue;
        }
        // Kernel column Col - Shift (a wide trace's other columns are zero).
        const unsigned Kx = Col - Shift;
        for (unsigned Ci = C0; Ci < C0 + Cn; ++Ci)
          Word([&](unsigned O) -> int16_t {
            return Col < Shift || Kx >= L.KW ? 0 : Weight(O, Ci, Ky, Kx);
          });
      }
  }
  // (A chunk of CUs splitting an item's chunks, LayerPlan::Parts, may hold
  // fewer channels than its block's words: the rest stay zero.)
  if (P.tailedChunk(B.C, B.Og)) {
    Out = Start + size_t(P.kernelWords(B.C)) * 2 * Lanes;
    Tail();
  }
}

} // namespace

std::optional<PinnedWeights> snow::compiler::pinWeights(const LayerPlan &D, const LayerPlan &P,
                                                        uint32_t WCap) {
  PinnedWeights W;
  W.Kernel.assign(size_t(P.NOg) * P.NChunks, UINT32_MAX);
  for (unsigned Og = 0; Og < P.NOg; ++Og) {
    const auto [C0, C1] = P.ogChunks(Og);
    for (unsigned C = C0; C < C1; ++C) {
      W.Kernel[Og * P.NChunks + C] = W.BigWords;
      W.BigWords += P.kernelWords(C);
    }
  }
  for (unsigned C = 0; C < D.NChunks; ++C) {
    W.Producer.push_back(W.SmallWords);
    W.SmallWords += D.kernelWords(C) + D.TailWords;
  }
  W.TailsInBig = W.BigWords + P.NOg * P.TailWords <= WCap;
  uint32_t &Words = W.TailsInBig ? W.BigWords : W.SmallWords;
  for (unsigned Og = 0; Og < P.NOg; ++Og) {
    W.Tail.push_back(Words);
    Words += P.TailWords;
  }
  if (W.BigWords > WCap || W.SmallWords > WCap)
    return std::nullopt;
  return W;
}

bool snow::compiler::colocatesWeights(const LayerPlan &D, const LayerPlan &Q, uint32_t WCap) {
  // (A split triple's producer may trace chunks: the reader's blocks ride
  // with its last, past its widest block.)
  if (!D.Window.R || (D.NChunks != 1 && !Q.MidSlot) || !Q.IsConv || !Q.Depthwise ||
      D.Rounds.empty() || D.Dynamic || Q.Dynamic || D.WeightsOnce || Q.WeightsOnce ||
      D.PinWeights || Q.PinWeights)
    return false;
  for (size_t K = 1; K < D.Rounds.size(); ++K)
    if (sameWork(D.Rounds[K - 1], D.Rounds[K], &Work::Og))
      return false;
  uint32_t Reader = 0;
  for (unsigned C = 0; C < Q.NChunks; ++C)
    Reader = std::max(Reader, Q.kernelWords(C) + Q.TailWords);
  return D.coReaderOffset() + Reader <= WCap;
}

WeightImage snow::compiler::layoutWeights(std::vector<LayerPlan> &Plans, const isa::HwConfig &Hw,
                                          uint64_t DataAddr) {
  WeightImage Image;
  Image.Hw = Hw;
  uint64_t &Size = Image.Size;
  bool AnyDynamic = false;
  for (LayerPlan &P : Plans) {
    AnyDynamic |= P.Dynamic;
    if (P.IsConv && !P.Dynamic)
      layoutLayer(P, Hw, DataAddr, Size, Image.Blocks);
  }
  if (AnyDynamic) {
    // One zero word, the bias of every block of run-time weights.
    Size = alignTo(Size, Hw.DramBurstBytes);
    for (LayerPlan &P : Plans)
      P.ZeroWord = DataAddr + Size;
    Size += uint64_t(2) * Hw.LanesPerVmac;
  }
  return Image;
}

void WeightImage::fill(uint64_t Begin, uint64_t End, uint8_t *Out) const {
  assert(Begin <= End && End <= Size && "a range of the image");
  if (Begin == End) // A model without weights: Out may be null (no memset of it).
    return;
  std::memset(Out, 0, End - Begin);
  // Block K spans [Offset, the next block's Offset or Size): its words, then
  // the padding to a burst.
  auto Extent = [&](size_t K) { return (K + 1 < Blocks.size() ? Blocks[K + 1].Offset : Size); };
  auto StartsBefore = [](const WeightBlock &B, uint64_t At) { return B.Offset < At; };
  // The first block that reaches into the range: the one before the first
  // starting in it, if it extends past Begin.
  size_t First =
      size_t(std::lower_bound(Blocks.begin(), Blocks.end(), Begin, StartsBefore) - Blocks.begin());
  if (First > 0 && Extent(First - 1) > Begin)
    --First;
  const size_t Last =
      size_t(std::lower_bound(Blocks.begin(), Blocks.end(), End, StartsBefore) - Blocks.begin());
  // Blocks are disjoint, so which thread writes one does not matter; parts
  // are runs of blocks (a window holds hundreds).
  snow::parallelFor(Last - First, double(End - Begin) / double(std::max<size_t>(1, Last - First)),
                    1 << 20, [&](size_t B0, size_t B1) {
                      thread_local std::vector<uint8_t> Aside;
                      for (size_t K = First + B0; K < First + B1; ++K) {
                        const WeightBlock &B = Blocks[K];
                        const uint64_t BlockEnd = Extent(K);
                        if (B.Offset >= Begin && BlockEnd <= End) {
                          fillBlock(B, Hw, Out + (B.Offset - Begin));
                          continue;
                        }
                        Aside.assign(BlockEnd - B.Offset, 0);
                        fillBlock(B, Hw, Aside.data());
                        const uint64_t From = std::max(Begin, B.Offset);
                        const uint64_t To = std::min(End, BlockEnd);
                        std::memcpy(Out + (From - Begin), Aside.data() + (From - B.Offset),
                                    To - From);
                      }
                    });
}
