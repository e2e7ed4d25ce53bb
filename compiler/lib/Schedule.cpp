//===- Schedule.cpp - List scheduling of layers ---------------------------===//
//
// See Schedule.h. Time is the planner's estimate of each layer's cycles; the
// graph input is ready at time 0. O(layers^2), which is nothing next to
// planning.
//
//===----------------------------------------------------------------------===//

#include "Schedule.h"
#include <algorithm>
#include <cassert>

using namespace snow;
using namespace snow::compiler;

/// The layers L reads: its inputs and its fused residual.
static std::vector<int> readsOf(const ir::Layer &L) {
  std::vector<int> R = L.Inputs;
  if (L.HasResidual)
    R.push_back(L.Residual);
  return R;
}

std::vector<unsigned> snow::compiler::scheduleLayers(const ir::Graph &G,
                                                     const std::vector<uint64_t> &Cycles) {
  const size_t N = G.Layers.size();
  assert(Cycles.size() == N && "one estimate per layer");
  // Longest chain of estimated cycles from each layer to the end of the graph.
  std::vector<std::vector<unsigned>> Readers(N);
  for (size_t I = 0; I < N; ++I)
    for (int In : readsOf(G.Layers[I]))
      if (In >= 0)
        Readers[size_t(In)].push_back(unsigned(I));
  std::vector<uint64_t> Chain(N, 0);
  for (size_t I = N; I-- > 0;) { // Layers are in a topological order already.
    uint64_t Longest = 0;
    for (unsigned R : Readers[I])
      Longest = std::max(Longest, Chain[R]);
    Chain[I] = Cycles[I] + Longest;
  }

  std::vector<bool> Done(N, false);
  std::vector<uint64_t> Finish(N, 0);
  std::vector<unsigned> Order;
  uint64_t Now = 0;
  while (Order.size() < N) {
    int Best = -1;
    uint64_t BestReady = 0;
    for (size_t I = 0; I < N; ++I) {
      if (Done[I])
        continue;
      uint64_t Ready = 0;
      bool CanRun = true;
      for (int In : readsOf(G.Layers[I])) {
        if (In < 0)
          continue;
        if (!Done[size_t(In)]) {
          CanRun = false;
          break;
        }
        Ready = std::max(Ready, Finish[size_t(In)]);
      }
      if (!CanRun)
        continue;
      if (Best < 0 || Ready < BestReady || (Ready == BestReady && Chain[I] > Chain[size_t(Best)])) {
        Best = int(I);
        BestReady = Ready;
      }
    }
    assert(Best >= 0 && "the layer graph has a cycle");
    Done[size_t(Best)] = true;
    Now += Cycles[size_t(Best)];
    Finish[size_t(Best)] = Now;
    Order.push_back(unsigned(Best));
  }
  return Order;
}
