//===- Execute.cpp - Fixed-point and float execution of a graph -----------===//
//
// One function per layer kind and arithmetic, each a literal transcription of
// docs/fixed-point.md: loop over every output, visit every tap of its window,
// apply the rule. Tensors are CHW vectors, as in the IR and the .npy files.
// Speed comes only from the loop order (the innermost loops walk contiguous
// input rows and weight rows); there are no tiles, no transposes and nothing
// shared with the compiler's lowering, so an agreement between this file and
// the simulator means something.
//
//===----------------------------------------------------------------------===//

#include "snow/ref/Reference.h"

#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <limits>

using namespace snow;
using namespace snow::ir;
using namespace snow::ref;

namespace {

/// Index of element (C, Y, X) of a CHW tensor of shape S.
size_t at(const Shape &S, size_t C, size_t Y, size_t X) { return (C * S.H + Y) * S.W + X; }

/// Index of weight (O, I, Ky, Kx) of an OIHW conv layer.
size_t weightAt(const Layer &L, size_t O, size_t I, size_t Ky, size_t Kx) {
  return ((O * L.In.C + I) * L.KH + Ky) * L.KW + Kx;
}

/// Input coordinate of tap K of the window of output O along one axis;
/// negative or >= the input size means the tap is in the padding (including
/// ceil-mode windows that run past the padded input: the contract counts those
/// positions as padding too).
int64_t inputCoord(unsigned O, unsigned Stride, unsigned PadBegin, unsigned K) {
  return int64_t(O) * Stride - int64_t(PadBegin) + int64_t(K);
}

bool inside(int64_t Coord, unsigned Size) { return Coord >= 0 && Coord < int64_t(Size); }

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

/// Writeback (contract, convolution step 4). 128 bits so that adding the
/// rounding constant cannot overflow even for a 64-bit accumulator.
int16_t writeback(int64_t Acc, int Shift, bool Relu) {
  __int128 Y = Acc;
  if (Shift > 0)
    Y = (Y + (__int128(1) << (Shift - 1))) >> Shift; // Round half up.
  int16_t Q = saturate16(Y);
  return Relu ? std::max<int16_t>(Q, 0) : Q;
}

// The contract wraps the accumulator to AccBits after every addition. Here
// the sum is kept in uint64_t, which wraps modulo 2^64 with defined behaviour,
// and reduced to AccBits once, at writeback. The two agree exactly: 2^AccBits
// divides 2^64, so the low AccBits bits of a sum depend only on the low
// AccBits bits of its terms -- wrapping early or late leaves the same residue
// modulo 2^AccBits, and signExtend picks the same two's-complement value for
// it. (tests/ref pins this with a sum that overflows 20 bits midway and comes
// back.) The bias preload is just the first term and wraps the same way.
std::vector<int16_t> convFixed(const Layer &L, const std::vector<int16_t> &In, unsigned AccBits) {
  const int BiasShift = L.InFrac + L.WFrac - L.BFrac;  // >= 0, verified.
  const int OutShift = L.InFrac + L.WFrac - L.OutFrac; // >= 0, verified.
  std::vector<int16_t> Out(L.Out.elems());
  for (unsigned Oc = 0; Oc < L.Out.C; ++Oc) {
    const int64_t Bias = L.QBias.empty() ? 0 : L.QBias[Oc];
    const uint64_t Preload = uint64_t(Bias << BiasShift); // At most 16 + 39 bits.
    for (unsigned Oy = 0; Oy < L.Out.H; ++Oy) {
      for (unsigned Ox = 0; Ox < L.Out.W; ++Ox) {
        uint64_t Acc = Preload;
        for (unsigned Ic = 0; Ic < L.In.C; ++Ic) {
          for (unsigned Ky = 0; Ky < L.KH; ++Ky) {
            const int64_t Iy = inputCoord(Oy, L.SH, L.PadT, Ky);
            if (!inside(Iy, L.In.H))
              continue; // Padding taps read 0: they add nothing.
            for (unsigned Kx = 0; Kx < L.KW; ++Kx) {
              const int64_t Ix = inputCoord(Ox, L.SW, L.PadL, Kx);
              if (!inside(Ix, L.In.W))
                continue;
              // int16 x int16 is exact in 32 bits.
              const int32_t Product =
                  int32_t(In[at(L.In, Ic, Iy, Ix)]) * L.QWeights[weightAt(L, Oc, Ic, Ky, Kx)];
              Acc += uint64_t(int64_t(Product));
            }
          }
        }
        Out[at(L.Out, Oc, Oy, Ox)] = writeback(signExtend(Acc, AccBits), OutShift, L.Relu);
      }
    }
  }
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

//===----------------------------------------------------------------------===//
// Float
//===----------------------------------------------------------------------===//

std::vector<float> convFloat(const Layer &L, const std::vector<float> &In) {
  assert(L.Weights.size() == L.QWeights.size() && "runFloat needs the float weights");
  std::vector<float> Out(L.Out.elems());
  for (unsigned Oc = 0; Oc < L.Out.C; ++Oc)
    for (unsigned Oy = 0; Oy < L.Out.H; ++Oy)
      for (unsigned Ox = 0; Ox < L.Out.W; ++Ox) {
        // Double, so the float result is the ideal and not another rounding.
        double Acc = L.Bias.empty() ? 0.0 : double(L.Bias[Oc]);
        for (unsigned Ic = 0; Ic < L.In.C; ++Ic)
          for (unsigned Ky = 0; Ky < L.KH; ++Ky) {
            const int64_t Iy = inputCoord(Oy, L.SH, L.PadT, Ky);
            if (!inside(Iy, L.In.H))
              continue;
            for (unsigned Kx = 0; Kx < L.KW; ++Kx) {
              const int64_t Ix = inputCoord(Ox, L.SW, L.PadL, Kx);
              if (inside(Ix, L.In.W))
                Acc += double(In[at(L.In, Ic, Iy, Ix)]) *
                       double(L.Weights[weightAt(L, Oc, Ic, Ky, Kx)]);
            }
          }
        if (L.Relu)
          Acc = std::max(Acc, 0.0);
        Out[at(L.Out, Oc, Oy, Ox)] = float(Acc);
      }
  return Out;
}

std::vector<float> maxPoolFloat(const Layer &L, const std::vector<float> &In) {
  std::vector<float> Out(L.Out.elems());
  for (unsigned C = 0; C < L.Out.C; ++C)
    for (unsigned Oy = 0; Oy < L.Out.H; ++Oy)
      for (unsigned Ox = 0; Ox < L.Out.W; ++Ox) {
        float Best = -std::numeric_limits<float>::infinity(); // Padding.
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

/// Runs the layers in order, feeding each the output of its producer. Every
/// output is kept until the end because any later layer may read it.
template <typename T, typename ConvFn, typename PoolFn>
std::vector<T> runGraph(const Graph &G, const std::vector<T> &Input,
                        std::vector<std::vector<T>> *LayerOutputs, ConvFn Conv, PoolFn Pool) {
  assertValid(G);
  assert(Input.size() == G.Input.elems() && "input size differs from the model input shape");
  std::vector<std::vector<T>> Outs(G.Layers.size());
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const Layer &L = G.Layers[I];
    const std::vector<T> &In = L.Input < 0 ? Input : Outs[L.Input];
    switch (L.Kind) {
    case LayerKind::Conv:
      Outs[I] = Conv(L, In);
      break;
    case LayerKind::MaxPool:
      Outs[I] = Pool(L, In);
      break;
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
  return runGraph<int16_t>(
      G, InputChw, LayerOutputs,
      [AccBits](const Layer &L, const std::vector<int16_t> &In) {
        return convFixed(L, In, AccBits);
      },
      maxPoolFixed);
}

std::vector<float> snow::ref::runFloat(const Graph &G, const std::vector<float> &InputChw,
                                       std::vector<std::vector<float>> *LayerOutputs) {
  return runGraph<float>(G, InputChw, LayerOutputs, convFloat, maxPoolFloat);
}
