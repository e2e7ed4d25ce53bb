//===- Verify.cpp - What the reference executor needs of a graph ----------===//
//
// The executors index tensors with the shapes and counts stored in the graph,
// so they trust nothing: this pass recomputes every output shape with its own
// copy of PyTorch's rule and checks every count and fixed-point format before
// a loop runs. The front end validates models too; checking again here is the
// point of an oracle (and hand-built test graphs have no front end at all).
//
//===----------------------------------------------------------------------===//

#include "snow/ref/Reference.h"

#include <fmt/format.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::ref;

namespace {

// Formats of the contract: activations are int16 Q(15-f).f, weights and
// biases take 0..24 fraction bits. Keeping every format in range also bounds
// the shifts (at most 15 + 24), so the executors' 64-bit arithmetic is exact.
constexpr int MaxActFrac = 15;
constexpr int MaxParamFrac = 24;

std::string shapeStr(const Shape &S) { return fmt::format("{}x{}x{}", S.C, S.H, S.W); }

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

  llvm::Error checkLayer(size_t I) {
    const Layer &L = G.Layers[I];
    if (L.Input < -1 || L.Input >= int(I))
      return failAt(L, "input index {} is not an earlier layer (or -1 for the graph input)",
                    L.Input);
    const Shape &Producer = L.Input < 0 ? G.Input : G.Layers[L.Input].Out;
    const int ProducerFrac = L.Input < 0 ? G.InputFrac : G.Layers[L.Input].OutFrac;
    if (!(L.In == Producer))
      return failAt(L, "input shape {} differs from its producer's output {}", shapeStr(L.In),
                    shapeStr(Producer));
    if (L.InFrac != ProducerFrac)
      return failAt(L, "input format has {} fraction bits but its producer writes {}", L.InFrac,
                    ProducerFrac);
    if (L.OutFrac < 0 || L.OutFrac > MaxActFrac)
      return failAt(L, "output format has {} fraction bits, expected 0..{}", L.OutFrac, MaxActFrac);
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

    switch (L.Kind) {
    case LayerKind::Conv:
      return checkConv(L);
    case LayerKind::MaxPool:
      if (L.Out.C != L.In.C)
        return failAt(L, "max pooling keeps channels: output has {}, input {}", L.Out.C, L.In.C);
      if (L.OutFrac != L.InFrac)
        return failAt(L, "max pooling keeps the format: output has {} fraction bits, input {}",
                      L.OutFrac, L.InFrac);
      return llvm::Error::success();
    }
    return failAt(L, "unknown layer kind {}", int(L.Kind));
  }

  llvm::Error checkConv(const Layer &L) {
    if (L.Out.C == 0)
      return failAt(L, "convolution has no output channels");
    const uint64_t NumWeights = uint64_t(L.Out.C) * L.In.C * L.KH * L.KW;
    if (L.QWeights.size() != NumWeights)
      return failAt(L, "has {} quantized weights, expected {} ({}x{}x{}x{}); was it quantized?",
                    L.QWeights.size(), NumWeights, L.Out.C, L.In.C, L.KH, L.KW);
    if (!L.Weights.empty() && L.Weights.size() != NumWeights)
      return failAt(L, "has {} float weights, expected {}", L.Weights.size(), NumWeights);
    if (!L.QBias.empty() && L.QBias.size() != L.Out.C)
      return failAt(L, "has {} quantized biases, expected {}", L.QBias.size(), L.Out.C);
    if (!L.Bias.empty() && L.Bias.size() != L.Out.C)
      return failAt(L, "has {} float biases, expected {}", L.Bias.size(), L.Out.C);
    if (L.WFrac < 0 || L.WFrac > MaxParamFrac || L.BFrac < 0 || L.BFrac > MaxParamFrac)
      return failAt(L, "weight / bias formats have {} / {} fraction bits, expected 0..{}", L.WFrac,
                    L.BFrac, MaxParamFrac);
    // Both shifts are left or right shifts by a fixed direction in the
    // contract; a negative one means the quantizer broke its own rule.
    if (L.InFrac + L.WFrac < L.BFrac)
      return failAt(L, "bias format ({} fraction bits) is finer than the products ({} + {})",
                    L.BFrac, L.InFrac, L.WFrac);
    if (L.InFrac + L.WFrac < L.OutFrac)
      return failAt(L, "output format ({} fraction bits) is finer than the products ({} + {})",
                    L.OutFrac, L.InFrac, L.WFrac);
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

llvm::Error snow::ref::verifyGraph(const Graph &G) { return Checker(G).run(); }
