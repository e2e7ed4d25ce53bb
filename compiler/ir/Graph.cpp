//===- Graph.cpp - Small queries on the model graph IR --------------------===//
//
// The parts of the IR that every consumer needs and that do not belong to the
// YAML front end or the quantizer: printable locations, layer kind names, MAC
// counts (the compiler's and simulator's utilization figures divide by these)
// and the output-size rule shared by shape inference and the lowering.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Graph.h"

#include "snow/support/Rng.h"
#include <cassert>

using namespace snow::ir;

std::string SourceLoc::str() const { return File + ":" + std::to_string(Line); }

const char *snow::ir::kindName(LayerKind K) {
  switch (K) {
  case LayerKind::Conv:
    return "conv";
  case LayerKind::MaxPool:
    return "maxpool";
  }
  assert(false && "unhandled LayerKind");
  return "?";
}

uint64_t Layer::macs() const {
  if (Kind != LayerKind::Conv)
    return 0;
  return Out.elems() * In.C * KH * KW;
}

uint64_t Graph::macs() const {
  uint64_t N = 0;
  for (const Layer &L : Layers)
    N += L.macs();
  return N;
}

unsigned snow::ir::windowOutSize(unsigned In, unsigned K, unsigned S, unsigned PadBegin,
                                 unsigned PadEnd, bool CeilMode) {
  assert(S > 0 && "stride must be positive");
  uint64_t Padded = uint64_t(In) + PadBegin + PadEnd;
  if (K > Padded)
    return 0;
  uint64_t Span = Padded - K;
  uint64_t Out = (CeilMode ? (Span + S - 1) / S : Span / S) + 1;
  // Rounding up may add a window that starts in the end padding and would
  // see no real input; PyTorch drops it, and so do we.
  if (CeilMode && (Out - 1) * S >= uint64_t(In) + PadBegin)
    --Out;
  return unsigned(Out);
}

std::vector<float> snow::ir::defaultInput(const Graph &G) {
  return snow::defaultInputValues(G.Input.elems(), G.Name);
}
