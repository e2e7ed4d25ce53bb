//===- FloatConv.cpp - The convolution of the float evaluator -------------===//
//
// Calibration runs every convolution of the model in double on each compile,
// so this loop is most of the front end's time. It must still give the plain
// loop's bits: each output sums, in double, bias, then residual, then the
// taps by input channel, kernel row and kernel column, skipping the taps that
// fall in the padding (skipping, not adding 0: -0.0 + 0.0 is +0.0). Nothing
// below reorders a sum; the speed comes from which sums run side by side,
// GEMM-style:
//
// - Register tiles. 8 output channels (two vectors of 4 doubles) times a run
//   of up to 6 output pixels stay in 12 vector registers while the terms
//   stream through, so a term costs one weight load per 4 channels and one
//   broadcast per pixel. Vectors run across output channels, not pixels: all
//   lanes then read the same input, a tap in the padding is in the padding
//   for every lane, and skipping it is plain control flow over the run's
//   kernel-row and kernel-column ranges (a run only groups pixels whose
//   ranges agree, e.g. the interior, or one edge of the image).
// - Packing. Each run's inputs are copied, as double and in summation order,
//   into a panel, and each block's weights into [term][channel]: the kernel
//   then reads both sequentially (strides and padding are the packing's
//   business), and both conversions are exact.
// - Blocking. The sum is cut into slices of input channels, so a block's
//   slice of weights stays in L1 and a chunk of runs' panels in L2; between
//   slices the running sums wait in memory (a double stores exactly).
// - FMA, where the CPU has it (chosen at run time): it rounds once where a
//   multiply then add rounds twice, but a product of two floats is exact in
//   double (24 + 24 significant bits <= 53, exponents far from the limits),
//   so the first rounding never happens and the bits are the same. The file
//   is compiled without contraction; the one fused multiply-add is explicit.
// - Threads split the pixels or the output channels; which thread computes
//   an output does not change how it is summed.
//
// Only the sign and payload of a NaN can differ from the plain loop's: with
// two NaN operands an x86 add returns the first, and which operand comes
// first is the compiler's choice (the plain loop's own choice varied by
// SIMD lane). Calibration ignores NaNs.
//
// Convolutions with fewer than 4 output channels per group (depthwise) would
// waste most lanes; they keep a plane-at-a-time loop, by output channel over
// threads.
//
//===----------------------------------------------------------------------===//

#include "FloatConv.h"
#include "snow/support/HugePages.h"

#include "snow/support/Parallel.h"
#include <algorithm>
#include <cassert>
#include <cstring>
#include <memory>
#include <vector>

using namespace snow::ir;

namespace {

/// Four doubles: one AVX register, or two SSE2 registers in the baseline
/// build. Arithmetic is IEEE in each lane either way.
using V4 = double __attribute__((vector_size(32)));

constexpr unsigned Lanes = 8;  ///< Output channels per block: two V4.
constexpr unsigned MaxRun = 6; ///< Pixels per register tile: 12 V4 accumulators.

/// Work per thread below which a thread is not worth starting, in MACs.
constexpr double MinMacsPerThread = 1e6;

/// Kernel taps [Lo, Hi) along one axis that read a real input for output O
/// (empty when the window lies wholly in the padding, or beyond it in
/// ceil mode).
struct TapRange {
  unsigned Lo = 0, Hi = 0;
  bool operator==(const TapRange &) const = default;
};
TapRange tapRange(unsigned O, unsigned Stride, unsigned PadBegin, unsigned K, unsigned InSize) {
  const int64_t First = int64_t(O) * Stride - int64_t(PadBegin); // input coordinate of tap 0
  const int64_t Lo = std::max<int64_t>(0, -First);
  const int64_t Hi = std::min<int64_t>(K, int64_t(InSize) - First);
  return Hi <= Lo ? TapRange{} : TapRange{unsigned(Lo), unsigned(Hi)};
}

/// Up to MaxRun output pixels that share their kernel-row and kernel-column
/// ranges, so one register tile sums them (not necessarily neighbours: the
/// pixels of one image edge form runs too).
struct PixelRun {
  unsigned N = 0;
  TapRange Ky, Kx;
  uint32_t Pixel[MaxRun]; ///< Index in the output plane.
  int64_t Origin[MaxRun]; ///< Index in the input plane of tap (0, 0), maybe outside.
};

/// Sizes of the working sets, chosen for a core's caches: a slice's packed
/// weights of one block stay in L1 while a chunk's runs stream past them, and
/// the chunk's packed inputs stay in L2 while the blocks stream past them.
constexpr unsigned SliceTerms = 256;
constexpr size_t ChunkPanelBytes = 128 << 10;

/// One convolution as the kernel sees it.
struct ConvJob {
  const Layer *L;
  /// The layer's float weights, or null while they are deferred and each
  /// block draws its own (Layer::Seeded).
  const float *Weights;
  const float *In, *Residual;
  float *Out;
  unsigned InPerGroup, OutPerGroup, BlocksPerGroup;
  unsigned InW, KH, KW;
  size_t InPlane, OutPlane, Taps;
  unsigned SliceChannels; ///< Input channels per slice of the sum.
  std::vector<PixelRun> Runs;
  /// Chunks of runs: [ChunkBegin[I], ChunkBegin[I + 1]).
  std::vector<size_t> ChunkBegin;
  /// With more than one slice, the running sums between slices:
  /// [block][run][pixel][lane].
  double *Acc = nullptr;

  /// First output channel of block B and how many of its lanes are real.
  std::pair<unsigned, unsigned> blockChannels(size_t B) const {
    const unsigned Group = unsigned(B / BlocksPerGroup);
    const unsigned Oc0 = Group * OutPerGroup + unsigned(B % BlocksPerGroup) * Lanes;
    return {Oc0, std::min(Lanes, (Group + 1) * OutPerGroup - Oc0)};
  }
};

/// Adds one term to the NP pixels' sums of 8 channels, fused or not (the
/// same bits, see the top of the file).
template <unsigned NP, bool Fused>
[[gnu::always_inline]] inline void addTerm(V4 (&A)[NP][2], const double *W, const double *X) {
  V4 W0, W1;
  std::memcpy(&W0, W, sizeof(V4));
  std::memcpy(&W1, W + 4, sizeof(V4));
  for (unsigned P = 0; P < NP; ++P) {
#ifndef __clang__
    if constexpr (Fused) {
      // The instruction is written out: an intrinsic would need this
      // template compiled for FMA, not only the function it is inlined into.
      const V4 S = {X[P], X[P], X[P], X[P]};
      V4 A0 = A[P][0], A1 = A[P][1];
      asm("vfmadd231pd %[S], %[W], %[A]" : [A] "+x"(A0) : [W] "x"(W0), [S] "x"(S));
      asm("vfmadd231pd %[S], %[W], %[A]" : [A] "+x"(A1) : [W] "x"(W1), [S] "x"(S));
      A[P][0] = A0, A[P][1] = A1;
      continue;
    }
#endif
    // clang (the fuzzing build) checks an asm operand's size before the
    // template is inlined into the avx2/fma function and refuses a 256-bit
    // "x": it takes this path, with the same bits (see the top of the file).
    A[P][0] += W0 * X[P];
    A[P][1] += W1 * X[P];
  }
}

/// Adds slice I0 .. I0 + Channels of the sum of one run (NP pixels) of block
/// B: W, the block's slice weights [channel][ky][kx][lane]; X, the run's
/// packed inputs [term][pixel] in summation order. The first slice starts
/// from bias and residual, the last writes the outputs; between slices the
/// sums wait in Acc ([pixel][lane]).
template <unsigned NP, bool Fused>
[[gnu::always_inline]] inline void tile(const ConvJob &J, size_t B, const double *W,
                                        const double *X, unsigned I0, unsigned Channels,
                                        const PixelRun &Run, double *Acc) {
  const Layer &L = *J.L;
  const auto [Oc0, Valid] = J.blockChannels(B);
  V4 A[NP][2];
  alignas(32) double Buf[NP][Lanes];
  const double *From = Acc;
  if (I0 == 0) {
    for (unsigned C = 0; C < Lanes; ++C) {
      const double Bias = C < Valid && !L.Bias.empty() ? double(L.Bias[Oc0 + C]) : 0.0;
      for (unsigned P = 0; P < NP; ++P)
        Buf[P][C] = Bias;
      if (J.Residual && C < Valid)
        for (unsigned P = 0; P < NP; ++P)
          Buf[P][C] += double(J.Residual[(Oc0 + C) * J.OutPlane + Run.Pixel[P]]);
    }
    From = &Buf[0][0];
  }
  for (unsigned P = 0; P < NP; ++P) {
    std::memcpy(&A[P][0], From + P * Lanes, sizeof(V4));
    std::memcpy(&A[P][1], From + P * Lanes + 4, sizeof(V4));
  }

  if (Run.Ky == TapRange{0, J.KH} && Run.Kx == TapRange{0, J.KW}) {
    // Every tap is real: the terms are the packed weights in order.
    const size_t Terms = size_t(Channels) * J.KH * J.KW;
    for (size_t T = 0; T < Terms; ++T, W += Lanes, X += NP)
      addTerm<NP, Fused>(A, W, X);
  } else {
    for (unsigned I = 0; I < Channels; ++I)
      for (unsigned Y = Run.Ky.Lo; Y < Run.Ky.Hi; ++Y) {
        const double *WRow = W + (size_t(I) * J.KH + Y) * J.KW * Lanes;
        for (unsigned Xk = Run.Kx.Lo; Xk < Run.Kx.Hi; ++Xk, X += NP)
          addTerm<NP, Fused>(A, WRow + Xk * Lanes, X);
      }
  }

  const bool Last = I0 + Channels == J.InPerGroup;
  double *To = Last ? &Buf[0][0] : Acc;
  for (unsigned P = 0; P < NP; ++P) {
    std::memcpy(To + P * Lanes, &A[P][0], sizeof(V4));
    std::memcpy(To + P * Lanes + 4, &A[P][1], sizeof(V4));
  }
  if (Last)
    for (unsigned C = 0; C < Valid; ++C)
      for (unsigned P = 0; P < NP; ++P) {
        const double Sum = Buf[P][C];
        J.Out[(Oc0 + C) * J.OutPlane + Run.Pixel[P]] = float(L.Relu ? std::max(Sum, 0.0) : Sum);
      }
}

/// The inputs of input channels [I0, I0 + Channels) of conv group Group that
/// run Run reads, in summation order: channel, kernel row, kernel column,
/// then the run's pixels. Returns the end of what it wrote.
template <unsigned NP>
double *packRun(const ConvJob &J, unsigned Group, unsigned I0, unsigned Channels,
                const PixelRun &Run, double *Dst) {
  for (unsigned I = I0; I < I0 + Channels; ++I) {
    const float *Channel = J.In + (size_t(Group) * J.InPerGroup + I) * J.InPlane;
    for (unsigned Y = Run.Ky.Lo; Y < Run.Ky.Hi; ++Y)
      for (unsigned X = Run.Kx.Lo; X < Run.Kx.Hi; ++X, Dst += NP) {
        // In the channel for every tap in the run's ranges.
        const int64_t Tap = int64_t(Y) * J.InW + X;
        for (unsigned P = 0; P < NP; ++P)
          Dst[P] = Channel[Run.Origin[P] + Tap];
      }
  }
  return Dst;
}

/// Block B's weights for input channels [I0, I0 + Channels): [channel][ky]
/// [kx][lane], lanes past the conv group's channels zero. Deferred weights
/// are drawn into Drawn first (each lane's slice is one run of draws).
void packWeights(const ConvJob &J, size_t B, unsigned I0, unsigned Channels, double *Dst,
                 std::vector<float> &Drawn) {
  const auto [Oc0, Valid] = J.blockChannels(B);
  const size_t Terms = size_t(Channels) * J.KH * J.KW;
  const float *Rows[Lanes]; // lanes past Valid point at a real row, never read
  const SeededWeights *Seeded = J.Weights ? nullptr : &*J.L->Seeded;
  if (Seeded)
    Drawn.resize(Valid * Terms);
  for (unsigned C = 0; C < Lanes; ++C) {
    const size_t First = (Oc0 + std::min(C, Valid - 1)) * J.Taps + size_t(I0) * J.KH * J.KW;
    if (!Seeded) {
      Rows[C] = &J.Weights[First];
      continue;
    }
    Rows[C] = &Drawn[std::min(C, Valid - 1) * Terms];
    if (C < Valid)
      Seeded->draw(First, Terms, &Drawn[C * Terms]);
  }
  for (size_t T = 0; T < Terms; ++T, Dst += Lanes)
    for (unsigned C = 0; C < Lanes; ++C)
      Dst[C] = C < Valid ? Rows[C][T] : 0.0;
}

/// One thread's share: blocks [B0, B1) at the pixels of chunks [C0, C1),
/// slice by slice.
template <bool Fused>
[[gnu::always_inline]] inline void work(const ConvJob &J, size_t B0, size_t B1, size_t C0,
                                        size_t C1) {
  const size_t KK = size_t(J.KH) * J.KW;
  std::vector<double> W((B1 - B0) * J.SliceChannels * KK * Lanes), X;
  std::vector<float> Drawn;
  std::vector<const double *> Panel;
  for (unsigned I0 = 0; I0 < J.InPerGroup; I0 += J.SliceChannels) {
    const unsigned Channels = std::min(J.SliceChannels, J.InPerGroup - I0);
    const size_t BlockTerms = Channels * KK * Lanes;
    for (size_t B = B0; B < B1; ++B)
      packWeights(J, B, I0, Channels, &W[(B - B0) * BlockTerms], Drawn);
    for (size_t Chunk = C0; Chunk < C1; ++Chunk) {
      const size_t R0 = J.ChunkBegin[Chunk], R1 = J.ChunkBegin[Chunk + 1];
      size_t Need = 0;
      for (size_t R = R0; R < R1; ++R) {
        const PixelRun &Run = J.Runs[R];
        Need += size_t(Run.N) * Channels * (Run.Ky.Hi - Run.Ky.Lo) * (Run.Kx.Hi - Run.Kx.Lo);
      }
      X.resize(Need);
      Panel.resize(R1 - R0);
      for (size_t B = B0; B < B1;) {
        // The blocks of one conv group share the packed inputs.
        const unsigned Group = unsigned(B / J.BlocksPerGroup);
        const size_t GroupEnd = std::min(B1, size_t(Group + 1) * J.BlocksPerGroup);
        double *Dst = X.data();
        for (size_t R = R0; R < R1; ++R) {
          Panel[R - R0] = Dst;
          const PixelRun &Run = J.Runs[R];
          switch (Run.N) {
          case 1:
            Dst = packRun<1>(J, Group, I0, Channels, Run, Dst);
            break;
          case 2:
            Dst = packRun<2>(J, Group, I0, Channels, Run, Dst);
            break;
          case 3:
            Dst = packRun<3>(J, Group, I0, Channels, Run, Dst);
            break;
          case 4:
            Dst = packRun<4>(J, Group, I0, Channels, Run, Dst);
            break;
          case 5:
            Dst = packRun<5>(J, Group, I0, Channels, Run, Dst);
            break;
          default:
            Dst = packRun<6>(J, Group, I0, Channels, Run, Dst);
          }
        }
        for (; B < GroupEnd; ++B) {
          const double *WB = &W[(B - B0) * BlockTerms];
          for (size_t R = R0; R < R1; ++R) {
            const PixelRun &Run = J.Runs[R];
            double *Acc = J.Acc ? J.Acc + (B * J.Runs.size() + R) * MaxRun * Lanes : nullptr;
            const double *XR = Panel[R - R0];
            switch (Run.N) {
            case 1:
              tile<1, Fused>(J, B, WB, XR, I0, Channels, Run, Acc);
              break;
            case 2:
              tile<2, Fused>(J, B, WB, XR, I0, Channels, Run, Acc);
              break;
            case 3:
              tile<3, Fused>(J, B, WB, XR, I0, Channels, Run, Acc);
              break;
            case 4:
              tile<4, Fused>(J, B, WB, XR, I0, Channels, Run, Acc);
              break;
            case 5:
              tile<5, Fused>(J, B, WB, XR, I0, Channels, Run, Acc);
              break;
            default:
              static_assert(MaxRun == 6, "one case per run length");
              tile<6, Fused>(J, B, WB, XR, I0, Channels, Run, Acc);
            }
          }
        }
      }
    }
  }
}

// The same kernel compiled twice; hasAvx2Fma() picks one.
#if defined(__x86_64__) || defined(__i386__)
[[gnu::target("avx2,fma")]] void workAvx2Fma(const ConvJob &J, size_t B0, size_t B1, size_t C0,
                                             size_t C1) {
  work<true>(J, B0, B1, C0, C1);
}
bool hasAvx2Fma() {
  static const bool Has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return Has;
}
#else
void workAvx2Fma(const ConvJob &, size_t, size_t, size_t, size_t) {}
bool hasAvx2Fma() { return false; }
#endif
void workBaseline(const ConvJob &J, size_t B0, size_t B1, size_t C0, size_t C1) {
  work<false>(J, B0, B1, C0, C1);
}

/// Cuts the output plane into runs, grouping pixels by their kernel-row and
/// kernel-column ranges (in scan order, so a run's pixels are near each
/// other), and the runs into chunks.
void makeRuns(const Layer &L, ConvJob &J) {
  const size_t ChunkPixels = std::max<size_t>(MaxRun, ChunkPanelBytes / sizeof(double) /
                                                          (size_t(J.SliceChannels) * L.KH * L.KW));
  size_t InChunk = ChunkPixels;
  auto Close = [&](PixelRun &Run) {
    if (InChunk + Run.N > ChunkPixels) {
      J.ChunkBegin.push_back(J.Runs.size());
      InChunk = 0;
    }
    InChunk += Run.N;
    J.Runs.push_back(Run);
    Run.N = 0;
  };
  std::vector<PixelRun> Open; // one per range pair met so far
  for (unsigned Oy = 0; Oy < L.Out.H; ++Oy) {
    const TapRange Ky = tapRange(Oy, L.SH, L.PadT, L.KH, L.In.H);
    const int64_t Iy0 = int64_t(Oy) * L.SH - int64_t(L.PadT);
    for (unsigned Ox = 0; Ox < L.Out.W; ++Ox) {
      const TapRange Kx = tapRange(Ox, L.SW, L.PadL, L.KW, L.In.W);
      auto It = std::find_if(Open.begin(), Open.end(),
                             [&](const PixelRun &R) { return R.Ky == Ky && R.Kx == Kx; });
      if (It == Open.end()) {
        It = Open.emplace(Open.end());
        It->Ky = Ky, It->Kx = Kx;
      }
      It->Pixel[It->N] = uint32_t(size_t(Oy) * L.Out.W + Ox);
      It->Origin[It->N] = Iy0 * int64_t(L.In.W) + int64_t(Ox) * L.SW - int64_t(L.PadL);
      if (++It->N == MaxRun)
        Close(*It);
    }
  }
  for (PixelRun &Run : Open)
    if (Run.N)
      Close(Run);
  J.ChunkBegin.push_back(J.Runs.size());
}

void tiledConv(const Layer &L, const float *In, const float *Residual, float *Out) {
  ConvJob J;
  J.L = &L;
  J.In = In;
  J.Residual = Residual;
  J.Out = Out;
  J.InPerGroup = L.In.C / L.Groups;
  J.OutPerGroup = L.Out.C / L.Groups;
  J.BlocksPerGroup = (J.OutPerGroup + Lanes - 1) / Lanes;
  J.InW = L.In.W, J.KH = L.KH, J.KW = L.KW;
  J.InPlane = size_t(L.In.H) * L.In.W;
  J.OutPlane = size_t(L.Out.H) * L.Out.W;
  J.Taps = size_t(J.InPerGroup) * L.KH * L.KW;
  J.SliceChannels =
      std::clamp(unsigned(SliceTerms / (size_t(L.KH) * L.KW)), 1u, std::max(J.InPerGroup, 1u));
  makeRuns(L, J);

  const size_t NumBlocks = size_t(L.Groups) * J.BlocksPerGroup;
  const size_t NumChunks = J.ChunkBegin.size() - 1;
  // Every element is written before it is read; on huge pages where the OS
  // has them (VGG-16's conv1_2 keeps 25 MB of sums: 6,300 page faults
  // otherwise, which cost more than its arithmetic on a VM).
  // Not zero-filled either (a vector would be, on this thread, before the
  // workers start): the workers' first touches fault the pages in, in
  // parallel.
  std::unique_ptr<double[]> Acc;
  if (J.SliceChannels < J.InPerGroup) {
    const size_t N = NumBlocks * J.Runs.size() * MaxRun * Lanes;
    Acc.reset(new double[N]);
    snow::adviseHugePages(Acc.get(), N * sizeof(double));
    J.Acc = Acc.get();
  }
  const bool HasAvx2Fma = hasAvx2Fma();
  auto Run = [&](size_t B0, size_t B1, size_t C0, size_t C1) {
    if (HasAvx2Fma)
      workAvx2Fma(J, B0, B1, C0, C1);
    else
      workBaseline(J, B0, B1, C0, C1);
  };
  // Threads split the pixels when there are more of them than channels, so
  // each packs only its own inputs and all of the (smaller) weights; else
  // they split the channels and each packs all of the inputs.
  const double Macs = double(J.Taps) * Lanes * NumBlocks * J.OutPlane;
  const bool SplitPixels = J.OutPlane >= L.Out.C && NumChunks > 1;
  // Threads that split the pixels each pack all the weights: deferred ones
  // are drawn once for them all, not once per thread, into a buffer kept
  // from layer to layer (fresh memory costs more than the draws).
  thread_local std::vector<float> Drawn;
  J.Weights = L.Seeded ? nullptr : L.Weights.data();
  if (L.Seeded && SplitPixels && L.heldWeights()) {
    if (Drawn.size() < L.heldWeights())
      Drawn.resize(L.heldWeights());
    L.Seeded->drawAll(Drawn.data());
    J.Weights = Drawn.data();
  }
  if (SplitPixels)
    snow::parallelFor(NumChunks, Macs / NumChunks, MinMacsPerThread,
                      [&](size_t C0, size_t C1) { Run(0, NumBlocks, C0, C1); });
  else
    snow::parallelFor(NumBlocks, Macs / NumBlocks, MinMacsPerThread,
                      [&](size_t B0, size_t B1) { Run(B0, B1, 0, NumChunks); });
}

/// Input coordinate of tap K of the window of output O along one axis;
/// outside [0, size) means the tap is in the padding.
int64_t inputCoord(unsigned O, unsigned Stride, unsigned PadBegin, unsigned K) {
  return int64_t(O) * Stride - int64_t(PadBegin) + int64_t(K);
}

/// Output channels [OcBegin, OcEnd), a whole output plane at a time: the
/// inner loops run over output pixels (long and contiguous), adding one tap
/// to every pixel it reaches, with the pixels whose tap is in the padding
/// cut off the row beforehand so the loop is branch-free.
void planeConv(const Layer &L, const float *Weights, const float *In, const float *Residual,
               float *Out, unsigned OcBegin, unsigned OcEnd) {
  const unsigned InPerGroup = L.In.C / L.Groups, OutPerGroup = L.Out.C / L.Groups;
  std::vector<TapRange> OutOfKx(L.KW); // output columns [Lo, Hi) whose tap Kx is real
  for (unsigned Kx = 0; Kx < L.KW; ++Kx) {
    TapRange &S = OutOfKx[Kx];
    auto Inside = [&](unsigned Ox) {
      const int64_t Ix = inputCoord(Ox, L.SW, L.PadL, Kx);
      return Ix >= 0 && Ix < int64_t(L.In.W);
    };
    while (S.Lo < L.Out.W && !Inside(S.Lo))
      ++S.Lo;
    S.Hi = S.Lo;
    while (S.Hi < L.Out.W && Inside(S.Hi))
      ++S.Hi;
  }
  const size_t Plane = size_t(L.Out.H) * L.Out.W, InPlane = size_t(L.In.H) * L.In.W;
  std::vector<double> Acc(Plane);
  for (unsigned Oc = OcBegin; Oc < OcEnd; ++Oc) {
    const unsigned FirstIc = Oc / OutPerGroup * InPerGroup;
    const size_t OutPlane = size_t(Oc) * Plane;
    std::fill(Acc.begin(), Acc.end(), L.Bias.empty() ? 0.0 : double(L.Bias[Oc]));
    if (Residual)
      for (size_t P = 0; P < Plane; ++P)
        Acc[P] += double(Residual[OutPlane + P]);
    for (unsigned I = 0; I < InPerGroup; ++I) {
      const float *Taps = &Weights[(size_t(Oc) * InPerGroup + I) * L.KH * L.KW];
      const float *Channel = In + (FirstIc + I) * InPlane;
      for (unsigned Ky = 0; Ky < L.KH; ++Ky)
        for (unsigned Kx = 0; Kx < L.KW; ++Kx) {
          const double W = Taps[Ky * L.KW + Kx];
          const TapRange X = OutOfKx[Kx];
          for (unsigned Oy = 0; Oy < L.Out.H; ++Oy) {
            const int64_t Iy = inputCoord(Oy, L.SH, L.PadT, Ky);
            if (Iy < 0 || Iy >= int64_t(L.In.H) || X.Lo >= X.Hi)
              continue;
            const float *Row = Channel + size_t(Iy) * L.In.W;
            double *A = &Acc[size_t(Oy) * L.Out.W];
            for (unsigned Ox = X.Lo; Ox < X.Hi; ++Ox)
              A[Ox] += double(Row[inputCoord(Ox, L.SW, L.PadL, Kx)]) * W;
          }
        }
    }
    for (size_t P = 0; P < Plane; ++P)
      Out[OutPlane + P] = float(L.Relu ? std::max(Acc[P], 0.0) : Acc[P]);
  }
}

} // namespace

void snow::ir::detail::convFloat(const Layer &L, const float *In, const float *Residual,
                                 float *Out) {
  assert(L.Kind == LayerKind::Conv && L.Groups && "a conv that passed checkFloatGraph");
  if (L.Out.C / L.Groups >= Lanes / 2)
    return tiledConv(L, In, Residual, Out);
  // Depthwise layers are small: deferred weights are drawn whole.
  const std::vector<float> Drawn = L.Seeded ? L.Seeded->drawAll() : std::vector<float>();
  const float *Weights = L.Seeded ? Drawn.data() : L.Weights.data();
  const double MacsPerChannel = double(L.In.C / L.Groups) * L.KH * L.KW * L.Out.H * L.Out.W;
  snow::parallelFor(L.Out.C, MacsPerChannel, MinMacsPerThread, [&](size_t Begin, size_t End) {
    planeConv(L, Weights, In, Residual, Out, unsigned(Begin), unsigned(End));
  });
}
