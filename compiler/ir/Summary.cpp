//===- Summary.cpp - A per-layer table of shapes, MACs and parameters -----===//
//
// What `snowc --summary` prints, and the quickest check that a model file
// describes the network it claims to: the totals are directly comparable
// with published MAC and parameter counts (docs/model-format.md, "Counting
// convention"). Types are the ones the user wrote (TypeName), so the table
// reads the same before and after canonicalize(); fused work shows as a
// suffix.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Graph.h"

#include <algorithm>
#include <fmt/format.h>

using namespace snow::ir;

namespace {

/// 1234567 -> "1,234,567": per-layer counts span seven orders of magnitude.
std::string grouped(uint64_t V) {
  std::string Digits = std::to_string(V), Out;
  for (size_t I = 0; I < Digits.size(); ++I) {
    if (I > 0 && (Digits.size() - I) % 3 == 0)
      Out += ',';
    Out += Digits[I];
  }
  return Out;
}

std::string shapeText(const Shape &S) { return fmt::format("{}x{}x{}", S.C, S.H, S.W); }

std::string typeText(const Graph &G, const Layer &L) {
  std::string T = L.TypeName.empty() ? kindName(L.Kind) : L.TypeName;
  if (L.HasResidual)
    T += "+add(" + (L.Residual < 0 ? G.InputName : G.Layers[L.Residual].Name) + ")";
  if (L.Relu)
    T += "+relu";
  return T;
}

} // namespace

std::string snow::ir::summary(const Graph &G) {
  size_t NameW = 5, TypeW = 4, ShapeW = 6;
  for (const Layer &L : G.Layers) {
    NameW = std::max(NameW, L.Name.size());
    TypeW = std::max(TypeW, typeText(G, L).size());
    ShapeW = std::max(ShapeW, shapeText(L.Out).size());
  }
  uint64_t Macs = G.macs(), Params = G.params();
  size_t MacW = std::max<size_t>(4, grouped(Macs).size());
  size_t ParamW = std::max<size_t>(6, grouped(Params).size());
  std::string Out =
      fmt::format("model '{}': input '{}' {}\n", G.Name, G.InputName, shapeText(G.Input));
  auto Row = [&](std::string_view Name, std::string_view Type, std::string_view Shp,
                 std::string_view M, std::string_view P) {
    Out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:>{}}  {:>{}}\n", Name, NameW, Type, TypeW, Shp,
                       ShapeW, M, MacW, P, ParamW);
  };
  Row("layer", "type", "output", "MACs", "params");
  for (const Layer &L : G.Layers)
    Row(L.Name, typeText(G, L), shapeText(L.Out), grouped(L.macs()), grouped(L.params()));
  Row("total", "", "", grouped(Macs), grouped(Params));
  Out += fmt::format("total: {:.3f} G MACs ({:.1f} M), {:.3f} M params", double(Macs) / 1e9,
                     double(Macs) / 1e6, double(Params) / 1e6);
  // Channel moves written as layers (shuffle, slice) compute as selections
  // as written: the network's own count leaves them out.
  if (const uint64_t Useful = G.usefulMacs(); Useful != Macs)
    Out += fmt::format("; {:.3f} G MACs ({:.1f} M), {:.3f} M params without its {:.1f} M MACs of "
                       "channel copies",
                       double(Useful) / 1e9, double(Useful) / 1e6, double(G.usefulParams()) / 1e6,
                       double(Macs - Useful) / 1e6);
  if (G.HostSoftmax)
    Out += "; softmax on the host";
  Out += "\n";
  return Out;
}
