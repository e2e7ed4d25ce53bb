//===- Execute.cpp - Fixed-point execution of a graph ---------------------===//
//
// One function per layer kind, each a literal transcription of
// docs/fixed-point.md: every output gets every tap of its window, then the
// rule. Tensors are CHW vectors, as in the IR and the .npy files. (The float
// path the quantization report compares with is ir::runFloat: it is not the
// oracle, so it is shared with calibration in the front end.)
//
// Speed comes only from the loop order. A convolution keeps one accumulator
// per output of one output channel (a plane), and adds the taps one weight at
// a time: for each input channel of the group, for each kernel position, the
// weight times a whole input row, added to a whole accumulator row. The
// innermost loop then walks contiguous memory with no branches (the outputs
// whose tap falls in the padding are cut off the row beforehand), which the
// compiler vectorizes. The sum of each accumulator is the same as visiting its
// taps one output at a time, since integer addition (mod 2^64) is associative.
// There are no tiles, no transposes and nothing shared with the compiler's
// lowering, so an agreement between this file and the simulator means something.
//
//===----------------------------------------------------------------------===//

#include "snow/ref/Reference.h"

#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <limits>
#include <type_traits>

using namespace snow;
using namespace snow::ir;
using namespace snow::ref;

namespace {

/// Index of element (C, Y, X) of a CHW tensor of shape S.
size_t at(const Shape &S, size_t C, size_t Y, size_t X) { return (C * S.H + Y) * S.W + X; }

/// Index of weight (O, I, Ky, Kx) of an OIHW conv layer, I counting the input
/// channels of O's group (I < In.C / Groups).
size_t weightAt(const Layer &L, size_t O, size_t I, size_t Ky, size_t Kx) {
  return ((O * (L.In.C / L.Groups) + I) * L.KH + Ky) * L.KW + Kx;
}

/// Input coordinate of tap K of the window of output O along one axis;
/// negative or >= the input size means the tap is in the padding (including
/// ceil-mode windows that run past the padded input: the contract counts those
/// positions as padding too).
int64_t inputCoord(unsigned O, unsigned Stride, unsigned PadBegin, unsigned K) {
  return int64_t(O) * Stride - int64_t(PadBegin) + int64_t(K);
}

bool inside(int64_t Coord, unsigned Size) { return Coord >= 0 && Coord < int64_t(Size); }

/// The outputs [Begin, End) along one axis whose tap K reads a real input
/// rather than padding. The input coordinate grows with the output index, so
/// those outputs are contiguous; scanning for them is obviously right and
/// costs nothing next to the taps.
struct Span {
  unsigned Begin = 0, End = 0;
};
Span insideSpan(unsigned OutSize, unsigned Stride, unsigned PadBegin, unsigned K, unsigned InSize) {
  Span S;
  while (S.Begin < OutSize && !inside(inputCoord(S.Begin, Stride, PadBegin, K), InSize))
    ++S.Begin;
  S.End = S.Begin;
  while (S.End < OutSize && inside(inputCoord(S.End, Stride, PadBegin, K), InSize))
    ++S.End;
  return S;
}

/// First input channel read by output channel Oc (contract, "Grouped
/// convolution"): channels [first, first + In.C / Groups).
unsigned firstInputChannel(const Layer &L, unsigned Oc) {
  return Oc / (L.Out.C / L.Groups) * (L.In.C / L.Groups);
}

/// Adds every tap of one output channel Oc to Acc (one entry per output
/// pixel, row-major): Acc[oy][ox] += in[ic][iy][ix] * w[Oc][ic][ky][kx] over
/// the channels of Oc's group and the kernel positions inside the input.
/// Padding taps read 0, so they are skipped. Multiply(X, W) gives the term
/// in the accumulator's type.
template <typename AccT, typename InT, typename WT, typename MulFn>
void accumulateTaps(const Layer &L, unsigned Oc, const std::vector<InT> &In,
                    const std::vector<WT> &Weights, std::vector<AccT> &Acc, MulFn Multiply) {
  const unsigned FirstIc = firstInputChannel(L, Oc);
  for (unsigned I = 0; I < L.In.C / L.Groups; ++I) {
    const InT *Channel = &In[at(L.In, FirstIc + I, 0, 0)];
    for (unsigned Ky = 0; Ky < L.KH; ++Ky) {
      const Span Ys = insideSpan(L.Out.H, L.SH, L.PadT, Ky, L.In.H);
      for (unsigned Kx = 0; Kx < L.KW; ++Kx) {
        const Span Xs = insideSpan(L.Out.W, L.SW, L.PadL, Kx, L.In.W);
        const WT W = Weights[weightAt(L, Oc, I, Ky, Kx)];
        for (unsigned Oy = Ys.Begin; Oy < Ys.End; ++Oy) {
          const InT *Row = Channel + inputCoord(Oy, L.SH, L.PadT, Ky) * L.In.W;
          AccT *AccRow = &Acc[size_t(Oy) * L.Out.W];
          for (unsigned Ox = Xs.Begin; Ox < Xs.End; ++Ox)
            AccRow[Ox] += Multiply(Row[inputCoord(Ox, L.SW, L.PadL, Kx)], W);
        }
      }
    }
  }
}

/// A graph the verifier rejects is a bug in the caller (the tools verify
/// first), so this is an assertion; it prints the verifier's message so the
/// failure says what was wrong, and aborts even with NDEBUG rather than read
/// out of bounds.
void assertValid(const Graph &G) {
  if (llvm::Error E = verifyGraph(G)) {
    llvm::errs() << "snow::ref: graph fails verifyGraph: " << llvm::toString(std::move(E)) << "\n";
    assert(false && "the reference executor needs a graph that passes verifyGraph");
    std::abort();
  }
}

//===----------------------------------------------------------------------===//
// Fixed point
//===----------------------------------------------------------------------===//

/// The value of the low Width bits of Bits read as two's complement: what an
/// accumulator of that width holds.
int64_t signExtend(uint64_t Bits, unsigned Width) {
  assert(Width >= 1 && Width <= 64 && "accumulator width out of range");
  if (Width == 64)
    return int64_t(Bits);
  const unsigned Unused = 64 - Width;
  return int64_t(Bits << Unused) >> Unused; // Arithmetic shift (C++20).
}

int16_t saturate16(__int128 Y) {
  return int16_t(std::clamp<__int128>(Y, std::numeric_limits<int16_t>::min(),
                                      std::numeric_limits<int16_t>::max()));
}

int16_t relu16(int16_t Q, bool Relu) { return Relu ? std::max<int16_t>(Q, 0) : Q; }

/// The activation table (contract, "Activation tables"): 257 segment ends
/// and a control entry. The 256 segments of 256 values cover x * 2^zoom; a
/// value within is interpolated between its segment's ends and rounded half
/// up, one below the table takes the first end, one above the last (plus
/// x's excess over the table with the identity tail). Written here from the
/// contract, not shared with the simulator, so that the two check each other.
int16_t activation(const std::vector<int16_t> &Table, int16_t X) {
  assert(Table.size() == 258 && "a table holds the ends of 256 segments and a control entry");
  const unsigned Control = uint16_t(Table[257]), Zoom = Control % 8;
  const bool IdentityTail = Control / 8 % 2, Normalised = Control / 16 % 2;
  int64_t W = int64_t(X) << Zoom;
  // The normalised mode (rsqrt): x * 4^m in [8192, 32767], then 2^(m - s).
  int M = 0;
  if (Normalised) {
    if (X <= 0)
      return Table[0];
    while (int64_t(X) * (int64_t(1) << (2 * M + 2)) < 32768)
      ++M;
    W = int64_t(X) * (int64_t(1) << (2 * M));
  }
  if (W < -32768)
    return Table[0];
  if (W > 32767)
    return IdentityTail ? saturate16(int64_t(Table[256]) + X - (int64_t(1) << (15 - Zoom)))
                        : Table[256];
  const int32_t U = int32_t(W) + 32768, Seg = U / 256, Off = U % 256;
  const int32_t Lo = Table[size_t(Seg)], Hi = Table[size_t(Seg) + 1];
  const int32_t Num = (Hi - Lo) * Off + 128;
  int32_t Step = Num / 256; // Rounds toward zero; the contract floors.
  if (Num % 256 < 0)
    --Step;
  const int64_t V = Lo + Step;
  if (!Normalised)
    return int16_t(V);
  const int S = int(Control / 256 % 16);
  if (M >= S)
    return saturate16(V * (int64_t(1) << (M - S)));
  const int64_t Div = int64_t(1) << (S - M); // Round half up: floor((V + Div / 2) / Div).
  const int64_t Q = V + Div / 2;
  return int16_t(Q >= 0 ? Q / Div : -((-Q + Div - 1) / Div));
}

/// Writeback (contract, convolution step 4). 128 bits so that adding the
/// rounding constant cannot overflow even for a 64-bit accumulator.
int16_t writeback(int64_t Acc, int Shift, bool Relu) {
  __int128 Y = Acc;
  if (Shift > 0)
    Y = (Y + (__int128(1) << (Shift - 1))) >> Shift; // Round half up.
  return relu16(saturate16(Y), Relu);
}

// The contract wraps the accumulator to AccBits after every addition. Here
// the sum is kept in uint64_t, which wraps modulo 2^64 with defined behaviour,
// and reduced to AccBits once, at writeback. The two agree exactly: 2^AccBits
// divides 2^64, so the low AccBits bits of a sum depend only on the low
// AccBits bits of its terms -- wrapping early or late leaves the same residue
// modulo 2^AccBits, and signExtend picks the same two's-complement value for
// it. (tests/ref pins this with a sum that overflows 20 bits midway and comes
// back.) The bias preload and the residual are terms like the taps and wrap
// the same way; the residual joins before the single rounding (contract,
// "Convolution with a fused residual add").
std::vector<int16_t> convFixed(const Layer &L, const std::vector<int16_t> &In,
                               const std::vector<int16_t> *Residual, unsigned AccBits) {
  const int BiasShift = L.InFrac + L.WFrac - L.BFrac;          // >= 0, verified.
  const int OutShift = L.InFrac + L.WFrac - L.writebackFrac(); // >= 0, verified.
  const int ResShift = L.InFrac + L.WFrac - L.ResFrac;         // >= 0 if HasResidual, verified.
  const size_t Plane = size_t(L.Out.H) * L.Out.W;
  std::vector<int16_t> Out(L.Out.elems());
  std::vector<uint64_t> Acc(Plane);
  for (unsigned Oc = 0; Oc < L.Out.C; ++Oc) {
    const int64_t Bias = L.QBias.empty() ? 0 : L.QBias[Oc];
    std::fill(Acc.begin(), Acc.end(), uint64_t(Bias << BiasShift)); // At most 16 + 39 bits.
    if (Residual)
      for (size_t P = 0; P < Plane; ++P)
        Acc[P] += uint64_t(int64_t((*Residual)[Oc * Plane + P]) << ResShift);
    accumulateTaps(L, Oc, In, L.QWeights, Acc, [](int16_t X, int16_t W) {
      return uint64_t(int64_t(int32_t(X) * int32_t(W))); // Exact in 32 bits.
    });
    for (size_t P = 0; P < Plane; ++P)
      Out[Oc * Plane + P] = writeback(signExtend(Acc[P], AccBits), OutShift, L.Relu);
  }
  assert((L.QLut.empty() || !L.Relu) && "canonicalize() keeps relus apart from activations");
  if (!L.QLut.empty())
    for (int16_t &Y : Out)
      Y = activation(L.QLut, Y);
  return Out;
}

/// Max pooling (contract, "Max pooling"). Padding holds -32768, the smallest
/// int16, so starting the maximum there is the same as visiting the padding
/// taps: they can tie with a real -32768 but never win.
std::vector<int16_t> maxPoolFixed(const Layer &L, const std::vector<int16_t> &In) {
  constexpr int16_t PadValue = std::numeric_limits<int16_t>::min();
  std::vector<int16_t> Out(L.Out.elems());
  for (unsigned C = 0; C < L.Out.C; ++C)
    for (unsigned Oy = 0; Oy < L.Out.H; ++Oy)
      for (unsigned Ox = 0; Ox < L.Out.W; ++Ox) {
        int16_t Best = PadValue;
        for (unsigned Ky = 0; Ky < L.KH; ++Ky) {
          const int64_t Iy = inputCoord(Oy, L.SH, L.PadT, Ky);
          for (unsigned Kx = 0; Kx < L.KW; ++Kx) {
            const int64_t Ix = inputCoord(Ox, L.SW, L.PadL, Kx);
            if (inside(Iy, L.In.H) && inside(Ix, L.In.W))
              Best = std::max(Best, In[at(L.In, C, Iy, Ix)]);
          }
        }
        Out[at(L.Out, C, Oy, Ox)] = Best;
      }
  return Out;
}

/// Average pooling (contract, "Average pooling"): the exact window sum,
/// padding counting as 0, times AvgMult, rounded half up by AvgShift. The
/// product needs up to 32 + 16 + 16 bits, hence 128-bit arithmetic.
std::vector<int16_t> avgPoolFixed(const Layer &L, const std::vector<int16_t> &In) {
  assert(L.AvgShift >= 1 && "verified: AvgShift is at least 15");
  const __int128 Half = __int128(1) << (L.AvgShift - 1);
  std::vector<int16_t> Out(L.Out.elems());
  for (unsigned C = 0; C < L.Out.C; ++C)
    for (unsigned Oy = 0; Oy < L.Out.H; ++Oy)
      for (unsigned Ox = 0; Ox < L.Out.W; ++Ox) {
        int64_t Sum = 0;
        for (unsigned Ky = 0; Ky < L.KH; ++Ky) {
          const int64_t Iy = inputCoord(Oy, L.SH, L.PadT, Ky);
          for (unsigned Kx = 0; Kx < L.KW; ++Kx) {
            const int64_t Ix = inputCoord(Ox, L.SW, L.PadL, Kx);
            if (inside(Iy, L.In.H) && inside(Ix, L.In.W))
              Sum += In[at(L.In, C, Iy, Ix)];
          }
        }
        Out[at(L.Out, C, Oy, Ox)] = saturate16((__int128(Sum) * L.AvgMult + Half) >> L.AvgShift);
      }
  return Out;
}

/// Unfused add (contract, "Add"): exact sum, saturate, then the layer's ReLU.
std::vector<int16_t> addFixed(const Layer &L, const std::vector<int16_t> &A,
                              const std::vector<int16_t> &B) {
  std::vector<int16_t> Out(A.size());
  for (size_t I = 0; I < A.size(); ++I)
    Out[I] = relu16(saturate16(int32_t(A[I]) + int32_t(B[I])), L.Relu);
  return Out;
}

/// The product of two maps (contract, "Products"): the writeback's rounding
/// of a * b from InFrac + WFrac (b's format) fraction bits to OutFrac.
std::vector<int16_t> mulFixed(const Layer &L, const std::vector<int16_t> &A,
                              const std::vector<int16_t> &B, unsigned AccBits) {
  const int Shift = L.InFrac + L.WFrac - L.OutFrac; // >= 0, verified.
  std::vector<int16_t> Out(A.size());
  for (size_t I = 0; I < A.size(); ++I)
    Out[I] = writeback(signExtend(uint64_t(int64_t(A[I]) * B[I]), AccBits), Shift, false);
  return Out;
}

//===----------------------------------------------------------------------===//
// Layers without arithmetic, and the walk over the graph
//===----------------------------------------------------------------------===//

/// CHW tensors stack along C by appending: the inputs' channels in input order.
template <typename T>
std::vector<T> concat(const Layer &L, const std::vector<const std::vector<T> *> &Ins) {
  std::vector<T> Out;
  Out.reserve(L.Out.elems());
  for (const std::vector<T> *In : Ins)
    Out.insert(Out.end(), In->begin(), In->end());
  return Out;
}

/// Channels [SliceBegin, SliceBegin + Out.C) of a CHW tensor: one run.
template <typename T> std::vector<T> slice(const Layer &L, const std::vector<T> &In) {
  const size_t Plane = size_t(L.In.H) * L.In.W;
  return std::vector<T>(In.begin() + ptrdiff_t(L.SliceBegin * Plane),
                        In.begin() + ptrdiff_t((L.SliceBegin + L.Out.C) * Plane));
}

template <typename T> std::vector<T> relu(const std::vector<T> &In) {
  std::vector<T> Out(In.size());
  for (size_t I = 0; I < In.size(); ++I)
    Out[I] = std::max(In[I], T(0));
  return Out;
}

/// The per-kind functions of one arithmetic.
struct FixedOps {
  unsigned AccBits;
  auto conv(const Layer &L, const std::vector<int16_t> &In, const std::vector<int16_t> *Res) const {
    return convFixed(L, In, Res, AccBits);
  }
  auto maxPool(const Layer &L, const std::vector<int16_t> &In) const { return maxPoolFixed(L, In); }
  auto avgPool(const Layer &L, const std::vector<int16_t> &In) const { return avgPoolFixed(L, In); }
  auto add(const Layer &L, const std::vector<int16_t> &A, const std::vector<int16_t> &B) const {
    return addFixed(L, A, B);
  }
  auto mul(const Layer &L, const std::vector<int16_t> &A, const std::vector<int16_t> &B) const {
    return mulFixed(L, A, B, AccBits);
  }
};

/// Runs the layers in order, feeding each the outputs of its producers. Every
/// output is kept until the end because any later layer may read it.
template <typename T, typename Ops>
std::vector<T> runGraph(const Graph &G, const std::vector<T> &Input,
                        std::vector<std::vector<T>> *LayerOutputs, const Ops &Arith) {
  assertValid(G);
  assert(Input.size() == G.Input.elems() && "input size differs from the model input shape");
  std::vector<std::vector<T>> Outs(G.Layers.size());
  auto Tensor = [&](int P) -> const std::vector<T> & { return P < 0 ? Input : Outs[P]; };
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const Layer &L = G.Layers[I];
    const std::vector<T> &In = Tensor(L.input());
    switch (L.Kind) {
    case LayerKind::Conv:
      if (L.DynamicWeights) {
        // x * s (contract, "Run-time weights"): s's values are the weights.
        Layer Scaled = L;
        if constexpr (std::is_same_v<T, int16_t>)
          Scaled.QWeights = Tensor(L.Inputs[1]);
        else
          Scaled.Weights = Tensor(L.Inputs[1]);
        Outs[I] = Arith.conv(Scaled, In, L.HasResidual ? &Tensor(L.Residual) : nullptr);
      } else {
        Outs[I] = Arith.conv(L, In, L.HasResidual ? &Tensor(L.Residual) : nullptr);
      }
      break;
    case LayerKind::MaxPool:
      Outs[I] = Arith.maxPool(L, In);
      break;
    case LayerKind::AvgPool:
      Outs[I] = Arith.avgPool(L, In);
      break;
    case LayerKind::Concat: {
      std::vector<const std::vector<T> *> Ins;
      for (int P : L.Inputs)
        Ins.push_back(&Tensor(P));
      Outs[I] = concat(L, Ins);
      break;
    }
    case LayerKind::Add:
      Outs[I] = Arith.add(L, In, Tensor(L.Inputs[1]));
      break;
    case LayerKind::Mul:
      Outs[I] = Arith.mul(L, In, Tensor(L.Inputs[1]));
      break;
    case LayerKind::Relu:
      Outs[I] = relu(In);
      break;
    case LayerKind::Slice:
      Outs[I] = slice(L, In);
      break;
    default:
      assert(false && "verifyGraph admits only canonical kinds");
      std::abort();
    }
  }
  std::vector<T> Result = Outs.back();
  if (LayerOutputs)
    *LayerOutputs = std::move(Outs);
  return Result;
}

} // namespace

std::vector<int16_t> snow::ref::runFixed(const Graph &G, const std::vector<int16_t> &InputChw,
                                         unsigned AccBits,
                                         std::vector<std::vector<int16_t>> *LayerOutputs) {
  assert(AccBits >= 1 && AccBits <= 64 && "accumulator width must be 1..64 bits");
  return runGraph<int16_t>(G, InputChw, LayerOutputs, FixedOps{AccBits});
}
