//===- PoolConcats.cpp - Max pools of concats pool each input -------------===//
//
// See PoolConcats.h. A pool that reads a concat of several convs waits for
// all of them and moves the whole block's output through DRAM on its own
// (GoogLeNet at batch 16: pool3 1.35 M cycles, pool4 0.66 M, nearly all of
// it waiting on the channel); pooled input by input, each part reads what
// one conv stores and may hide its traffic beside that conv's traces.
//
//===----------------------------------------------------------------------===//

#include "PoolConcats.h"

#include "CanonSteps.h"
#include <fmt/format.h>

using namespace snow::ir;

bool snow::ir::detail::poolConcatInputs(Graph &G) {
  const size_t N = G.Layers.size();
  const std::vector<unsigned> Uses = useCounts(G);
  // The pools to split, and the concats they alone read.
  std::vector<bool> Split(N, false), Drop(N, false);
  bool Any = false;
  for (size_t I = 0; I < N; ++I) {
    const Layer &P = G.Layers[I];
    const int C = P.input();
    if (P.Kind != LayerKind::MaxPool || C < 0 || G.Layers[size_t(C)].Kind != LayerKind::Concat ||
        Uses[size_t(C)] != 1)
      continue;
    Split[I] = Drop[size_t(C)] = Any = true;
  }
  if (!Any)
    return false;
  // The parts and their concat go where the pool was: every concat input
  // comes before the concat, so before the pool.
  std::vector<int> NewIndex(N, -1);
  std::vector<Layer> Out;
  auto Map = [&](int I) { return I < 0 ? I : NewIndex[size_t(I)]; };
  for (size_t I = 0; I < N; ++I) {
    if (Drop[I])
      continue; // Read only by its pool, which now reads its inputs.
    if (!Split[I]) {
      Layer L = std::move(G.Layers[I]);
      for (int &In : L.Inputs)
        In = Map(In);
      if (L.HasResidual)
        L.Residual = Map(L.Residual);
      NewIndex[I] = int(Out.size());
      Out.push_back(std::move(L));
      continue;
    }
    const Layer &P = G.Layers[I];
    const Layer &C = G.Layers[size_t(P.input())];
    Layer Cat;
    Cat.Name = P.Name;
    Cat.Kind = LayerKind::Concat;
    Cat.TypeName = "concat";
    Cat.Loc = P.Loc;
    Cat.Inputs.clear();
    Cat.Out = P.Out;
    unsigned Begin = 0;
    for (int In : C.Inputs) {
      const Shape S = In < 0 ? G.Input : G.Layers[size_t(In)].Out;
      Layer Part = P;
      Part.Name = fmt::format("{}[{}:{}]", P.Name, Begin, Begin + S.C);
      Part.Inputs = {Map(In)};
      Part.In = S;
      Part.Out.C = S.C;
      Begin += S.C;
      Cat.Inputs.push_back(int(Out.size()));
      Out.push_back(std::move(Part));
    }
    Cat.In = Out[size_t(Cat.Inputs.front())].Out;
    NewIndex[I] = int(Out.size());
    Out.push_back(std::move(Cat));
  }
  G.Layers = std::move(Out);
  return true;
}
