//===- Verify.cpp - What the reference executor needs of a graph ----------===//
//
// The executors index tensors with the shapes and counts stored in the graph,
// so they trust nothing: this pass recomputes every output shape with its own
// copy of PyTorch's rule, recomputes the average-pooling constants from the
// contract, and checks every count and fixed-point format before a loop runs.
// The front end validates models too; checking again here is the point of an
// oracle (and hand-built test graphs have no front end at all).
//
//===----------------------------------------------------------------------===//

#include "snow/ref/Reference.h"

#include <cassert>
#include <fmt/format.h>
#include <limits>

using namespace snow;
using namespace snow::ir;
using namespace snow::ref;

namespace {

// Formats of the contract: activations are int16 Q(15-f).f, weights and
// biases take 0..24 fraction bits. Keeping every format in range also bounds
// the shifts (at most 15 + 24), so the executors' 64-bit arithmetic is exact.
constexpr int MaxActFrac = std::numeric_limits<int16_t>::digits;
constexpr int MaxParamFrac = 24;

std::string shapeStr(const Shape &S) { return fmt::format("{}x{}x{}", S.C, S.H, S.W); }

/// The name the user knows the layer kind by: what they wrote if the front
/// end kept it, else the IR's name for the kind.
std::string typeOf(const Layer &L) {
  return L.TypeName.empty() ? std::string(kindName(L.Kind)) : L.TypeName;
}

/// Accumulates the first problem found, prefixed with where the layer came from.
class Checker {
public:
  explicit Checker(const Graph &G) : G(G) {}

  llvm::Error run() {
    if (G.Layers.empty())
      return fail("model '{}' has no layers", G.Name);
    if (G.Input.elems() == 0)
      return fail("model '{}': input shape {} is empty", G.Name, shapeStr(G.Input));
    if (G.InputFrac < 0 || G.InputFrac > MaxActFrac)
      return fail("model '{}': input format has {} fraction bits, expected 0..{}", G.Name,
                  G.InputFrac, MaxActFrac);
    for (size_t I = 0; I < G.Layers.size(); ++I)
      if (llvm::Error E = checkLayer(I))
        return E;
    return llvm::Error::success();
  }

private:
  const Graph &G;

  template <typename... Args> llvm::Error fail(fmt::format_string<Args...> Fmt, Args &&...A) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   fmt::format(Fmt, std::forward<Args>(A)...));
  }

  template <typename... Args>
  llvm::Error failAt(const Layer &L, fmt::format_string<Args...> Fmt, Args &&...A) {
    std::string Where = L.Loc.File.empty() ? "" : L.Loc.str() + ": ";
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   Where + "layer '" + L.Name +
                                       "': " + fmt::format(Fmt, std::forward<Args>(A)...));
  }

  // Producer P is a layer index or -1 for the graph input (checked in range).
  const Shape &shapeOf(int P) const { return P < 0 ? G.Input : G.Layers[P].Out; }
  int fracOf(int P) const { return P < 0 ? G.InputFrac : G.Layers[P].OutFrac; }
  std::string nameOf(int P) const {
    return P < 0 ? "the graph input" : "layer '" + G.Layers[P].Name + "'";
  }

  llvm::Error checkLayer(size_t I) {
    const Layer &L = G.Layers[I];
    // The kinds the executor runs are the ones the compiler maps: one list,
    // ir::isCanonicalKind, so the two cannot drift apart.
    if (!isCanonicalKind(L.Kind)) {
      if (int(L.Kind) < 0 || int(L.Kind) > int(LayerKind::Softmax)) // Softmax: the last kind.
        return failAt(L, "unknown layer kind {}", int(L.Kind));
      return failAt(L,
                    "type '{}' is not in canonical form; run ir::canonicalize() before the "
                    "reference executor (it folds batchnorm, rewrites fc and global pooling, and "
                    "moves softmax to the host)",
                    typeOf(L));
    }

    if (L.Inputs.empty())
      return failAt(L, "has no inputs");
    for (int P : L.Inputs)
      if (P < -1 || P >= int(I))
        return failAt(L, "input index {} is not an earlier layer (or -1 for the graph input)", P);
    const size_t Want =
        L.Kind == LayerKind::Add || L.Kind == LayerKind::Mul || L.DynamicWeights ? 2 : 1;
    if (L.Kind != LayerKind::Concat && L.Inputs.size() != Want)
      return failAt(L, "{} takes {} input{}, got {}", typeOf(L), Want, Want == 1 ? "" : "s",
                    L.Inputs.size());
    if (!(L.In == shapeOf(L.input())))
      return failAt(L, "input shape {} differs from its producer's output {}", shapeStr(L.In),
                    shapeStr(shapeOf(L.input())));
    if (L.InFrac != fracOf(L.input()))
      return failAt(L, "input format has {} fraction bits but its producer writes {}", L.InFrac,
                    fracOf(L.input()));
    if (L.OutFrac < 0 || L.OutFrac > MaxActFrac)
      return failAt(L, "output format has {} fraction bits, expected 0..{}", L.OutFrac, MaxActFrac);
    // Only conv and add apply a ReLU of their own (the contract); a flag on any
    // other kind would be silently ignored, so it is refused instead.
    if (L.Relu && L.Kind != LayerKind::Conv && L.Kind != LayerKind::Add &&
        L.Kind != LayerKind::Relu)
      return failAt(L, "has a fused ReLU, which only conv and add layers apply");
    if (L.HasResidual && L.Kind != LayerKind::Conv)
      return failAt(L, "has a fused residual add, which only conv layers take");

    switch (L.Kind) {
    case LayerKind::Conv:
      if (llvm::Error E = checkWindow(L))
        return E;
      return checkConv(L, I);
    case LayerKind::MaxPool:
    case LayerKind::AvgPool:
      if (llvm::Error E = checkWindow(L))
        return E;
      return checkPool(L);
    case LayerKind::Concat:
      return checkConcat(L);
    case LayerKind::Slice:
      return checkSlice(L);
    case LayerKind::Mul:
      return checkMul(L);
    default: // Add and Relu: elementwise.
      return checkElementwise(L);
    }
  }

  llvm::Error checkWindow(const Layer &L) {
    if (L.KH == 0 || L.KW == 0 || L.SH == 0 || L.SW == 0)
      return failAt(L, "kernel {}x{} and stride {}x{} must be at least 1", L.KH, L.KW, L.SH, L.SW);
    unsigned OutH = windowOutputSize(L.In.H, L.KH, L.SH, L.PadT, L.PadB, L.CeilMode);
    unsigned OutW = windowOutputSize(L.In.W, L.KW, L.SW, L.PadL, L.PadR, L.CeilMode);
    if (OutH == 0 || OutW == 0)
      return failAt(L, "window {}x{} does not fit the padded input {}x{}", L.KH, L.KW,
                    L.In.H + L.PadT + L.PadB, L.In.W + L.PadL + L.PadR);
    if (L.Out.H != OutH || L.Out.W != OutW)
      return failAt(L, "output is {}x{} but the window rule gives {}x{}", L.Out.H, L.Out.W, OutH,
                    OutW);
    return llvm::Error::success();
  }

  llvm::Error checkConv(const Layer &L, size_t I) {
    if (L.Out.C == 0)
      return failAt(L, "convolution has no output channels");
    if (L.Groups == 0 || L.In.C % L.Groups != 0 || L.Out.C % L.Groups != 0)
      return failAt(L,
                    "groups {} must divide both the input channels {} and the output "
                    "channels {}",
                    L.Groups, L.In.C, L.Out.C);
    const uint64_t InPerGroup = L.In.C / L.Groups;
    const uint64_t NumWeights = uint64_t(L.Out.C) * InPerGroup * L.KH * L.KW;
    if (L.DynamicWeights) {
      // x * s: s holds one weight per channel, in s's format.
      const int S = L.Inputs[1];
      if (L.Groups != L.In.C || L.Out.C != L.In.C || L.KH != 1 || L.KW != 1 ||
          shapeOf(S).elems() != L.In.C || L.WFrac != fracOf(S) || !L.QWeights.empty())
        return failAt(L, "run-time weights need a depthwise 1x1 conv, a weight tensor of one "
                         "value per channel and its format as WFrac");
    } else if (L.QWeights.size() != NumWeights)
      return failAt(L, "has {} quantized weights, expected {} ({}x{}x{}x{}); was it quantized?",
                    L.QWeights.size(), NumWeights, L.Out.C, InPerGroup, L.KH, L.KW);
    if (!L.Weights.empty() && L.Weights.size() != NumWeights)
      return failAt(L, "has {} float weights, expected {}", L.Weights.size(), NumWeights);
    if (!L.QBias.empty() && L.QBias.size() != L.Out.C)
      return failAt(L, "has {} quantized biases, expected {}", L.QBias.size(), L.Out.C);
    if (!L.Bias.empty() && L.Bias.size() != L.Out.C)
      return failAt(L, "has {} float biases, expected {}", L.Bias.size(), L.Out.C);
    if (L.WFrac < 0 || L.WFrac > MaxParamFrac || L.BFrac < 0 || L.BFrac > MaxParamFrac)
      return failAt(L, "weight / bias formats have {} / {} fraction bits, expected 0..{}", L.WFrac,
                    L.BFrac, MaxParamFrac);
    // Every alignment in the contract is a shift in a fixed direction; a
    // negative one means the quantizer broke its own rule.
    if (L.InFrac + L.WFrac < L.BFrac)
      return failAt(L, "bias format ({} fraction bits) is finer than the products ({} + {})",
                    L.BFrac, L.InFrac, L.WFrac);
    if (L.InFrac + L.WFrac < L.writebackFrac())
      return failAt(L, "{} format ({} fraction bits) is finer than the products ({} + {})",
                    L.Activation == ir::Act::None ? "output" : "pre-activation", L.writebackFrac(),
                    L.InFrac, L.WFrac);
    if (L.Activation != ir::Act::None &&
        (L.PreFrac < 0 || L.PreFrac > MaxActFrac || L.QLut.size() != 258 || L.Relu))
      return failAt(L,
                    "activation table: {} entries (expected 258), pre-activation format {} "
                    "fraction bits (expected 0..{}){}",
                    L.QLut.size(), L.PreFrac, MaxActFrac, L.Relu ? ", and a relu before it" : "");
    if (!L.HasResidual)
      return llvm::Error::success();

    const int R = L.Residual;
    if (R < -1 || R >= int(I))
      return failAt(L, "residual index {} is not an earlier layer (or -1 for the graph input)", R);
    if (!(shapeOf(R) == L.Out))
      return failAt(L, "residual from {} is {} but the output is {}", nameOf(R),
                    shapeStr(shapeOf(R)), shapeStr(L.Out));
    if (L.ResFrac != fracOf(R))
      return failAt(L, "residual format has {} fraction bits but {} writes {}", L.ResFrac,
                    nameOf(R), fracOf(R));
    if (L.InFrac + L.WFrac < L.ResFrac)
      return failAt(L, "residual format ({} fraction bits) is finer than the products ({} + {})",
                    L.ResFrac, L.InFrac, L.WFrac);
    return llvm::Error::success();
  }

  llvm::Error checkPool(const Layer &L) {
    const char *What = L.Kind == LayerKind::MaxPool ? "max" : "average";
    if (L.Out.C != L.In.C)
      return failAt(L, "{} pooling keeps channels: output has {}, input {}", What, L.Out.C, L.In.C);
    if (L.Kind == LayerKind::MaxPool) {
      if (L.OutFrac != L.InFrac)
        return failAt(L, "max pooling keeps the format: output has {} fraction bits, input {}",
                      L.OutFrac, L.InFrac);
      return llvm::Error::success();
    }
    if (L.CeilMode)
      return failAt(L, "average pooling does not support ceil_mode (docs/fixed-point.md)");
    const uint64_t K = uint64_t(L.KH) * L.KW;
    if (K > (uint64_t(1) << 32))
      return failAt(L, "average-pooling window {}x{} is larger than 2^32 positions", L.KH, L.KW);
    const AvgConstants C = avgPoolConstants(K);
    if (C.Mult > 0xffff)
      return failAt(L,
                    "average-pooling window {}x{} needs the multiplier {}, which does not fit "
                    "16 bits",
                    L.KH, L.KW, C.Mult);
    // The mean's shift, less the rescaling from the input's format to the
    // output's (contract, "Average pooling").
    const int64_t Shift = int64_t(C.Shift) - (L.OutFrac - L.InFrac);
    if (L.AvgMult != C.Mult || int64_t(L.AvgShift) != Shift || Shift < 1 || Shift > 63)
      return failAt(L,
                    "average-pooling constants are mult {} shift {}, but a {}x{} window from {} "
                    "to {} fraction bits needs mult {} shift {} (1..63); was it quantized?",
                    L.AvgMult, L.AvgShift, L.KH, L.KW, L.InFrac, L.OutFrac, C.Mult, Shift);
    return llvm::Error::success();
  }

  llvm::Error checkConcat(const Layer &L) {
    uint64_t Channels = 0;
    for (int P : L.Inputs) {
      const Shape &S = shapeOf(P);
      if (S.H != L.In.H || S.W != L.In.W)
        return failAt(L,
                      "input from {} is {}, the first input {}: concat needs one height and "
                      "width",
                      nameOf(P), shapeStr(S), shapeStr(L.In));
      if (fracOf(P) != L.InFrac)
        return failAt(L,
                      "input from {} has {} fraction bits, the first input {}: concat does "
                      "no arithmetic, so they must agree",
                      nameOf(P), fracOf(P), L.InFrac);
      Channels += S.C;
    }
    const Shape Want{uint32_t(Channels), L.In.H, L.In.W};
    if (Channels != Want.C || !(L.Out == Want))
      return failAt(L, "output is {} but the inputs concatenate to {}x{}x{}", shapeStr(L.Out),
                    Channels, L.In.H, L.In.W);
    if (L.OutFrac != L.InFrac)
      return failAt(L, "concat keeps the format: output has {} fraction bits, input {}", L.OutFrac,
                    L.InFrac);
    return llvm::Error::success();
  }

  llvm::Error checkSlice(const Layer &L) {
    if (L.Out.H != L.In.H || L.Out.W != L.In.W || L.Out.C == 0 ||
        uint64_t(L.SliceBegin) + L.Out.C > L.In.C)
      return failAt(L, "output {} is not a run of channels of the input {} from channel {}",
                    shapeStr(L.Out), shapeStr(L.In), L.SliceBegin);
    if (L.OutFrac != L.InFrac)
      return failAt(L, "slice keeps the format: output has {} fraction bits, input {}", L.OutFrac,
                    L.InFrac);
    return llvm::Error::success();
  }

  llvm::Error checkMul(const Layer &L) {
    const int B = L.Inputs[1];
    if (!(shapeOf(B) == L.In) || !(L.Out == L.In))
      return failAt(L, "mul needs one shape: inputs {} and {}, output {}", shapeStr(L.In),
                    shapeStr(shapeOf(B)), shapeStr(L.Out));
    // b multiplies as a weight would: WFrac is its format, and the
    // writeback shifts the product right by InFrac + WFrac - OutFrac.
    if (L.WFrac != fracOf(B))
      return failAt(L, "second operand's format is {} fraction bits but its producer writes {}",
                    L.WFrac, fracOf(B));
    if (L.OutFrac > L.InFrac + L.WFrac)
      return failAt(L, "output format has {} fraction bits, more than the product's {} + {}",
                    L.OutFrac, L.InFrac, L.WFrac);
    return llvm::Error::success();
  }

  llvm::Error checkElementwise(const Layer &L) {
    for (int P : L.Inputs) {
      if (!(shapeOf(P) == L.In))
        return failAt(L, "input from {} is {}, the first input {}", nameOf(P), shapeStr(shapeOf(P)),
                      shapeStr(L.In));
      if (fracOf(P) != L.InFrac)
        return failAt(L,
                      "input from {} has {} fraction bits, the first input {}: {} needs one "
                      "format",
                      nameOf(P), fracOf(P), L.InFrac, typeOf(L));
    }
    if (!(L.Out == L.In))
      return failAt(L, "{} keeps the shape: output is {}, input {}", typeOf(L), shapeStr(L.Out),
                    shapeStr(L.In));
    if (L.OutFrac != L.InFrac)
      return failAt(L, "{} keeps the format: output has {} fraction bits, input {}", typeOf(L),
                    L.OutFrac, L.InFrac);
    return llvm::Error::success();
  }
};

} // namespace

unsigned snow::ref::windowOutputSize(unsigned In, unsigned K, unsigned S, unsigned PadBegin,
                                     unsigned PadEnd, bool CeilMode) {
  assert(K > 0 && S > 0 && "kernel and stride are at least 1");
  const uint64_t Padded = uint64_t(In) + PadBegin + PadEnd;
  if (In == 0 || Padded < K)
    return 0;
  const uint64_t Span = Padded - K;
  uint64_t Out = (CeilMode ? (Span + S - 1) / S : Span / S) + 1;
  // PyTorch never lets a ceil-mode window start in the end padding: it would
  // see nothing but padding.
  if (CeilMode && (Out - 1) * S >= uint64_t(In) + PadBegin)
    --Out;
  return unsigned(Out);
}

AvgConstants snow::ref::avgPoolConstants(uint64_t K) {
  assert(K >= 1 && K <= (uint64_t(1) << 32) && "window of 1 to 2^32 positions");
  unsigned CeilLog2 = 0;
  while ((uint64_t(1) << CeilLog2) < K)
    ++CeilLog2;
  AvgConstants C;
  C.Shift = 15 + CeilLog2;
  // round(2^Shift / K) in integers; a tie is impossible (it would need K to be
  // a power of two, which divides 2^Shift exactly), so half-up is the rule.
  const unsigned __int128 Num = (unsigned __int128)(1) << C.Shift;
  C.Mult = unsigned((Num + K / 2) / K);
  return C;
}

llvm::Error snow::ref::verifyGraph(const Graph &G) { return Checker(G).run(); }
