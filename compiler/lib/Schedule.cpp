//===- Schedule.cpp - List scheduling of layers ---------------------------===//
//
// See Schedule.h. Time is the planner's estimate of each layer's cycles; the
// graph input is ready at time 0.
//
//===----------------------------------------------------------------------===//

#include "Schedule.h"
#include <algorithm>
#include <cassert>
#include <queue>

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
                                                     const std::vector<uint64_t> &Cycles,
                                                     const std::vector<bool> &Late) {
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

  // List scheduling with a heap of the ready layers, O(N log N) (20,000
  // layers must compile in seconds). A layer's ready time is fixed once its
  // last input finishes, so the heap picks exactly what a scan over all
  // layers would: earliest ready, then the longest chain, then the first in
  // the model's order.
  std::vector<unsigned> Pending(N, 0); // inputs not yet run, one per read
  std::vector<uint64_t> Ready(N, 0);
  for (size_t I = 0; I < N; ++I)
    for (unsigned R : Readers[I])
      ++Pending[R];
  auto Later = [&](unsigned A, unsigned B) { // true if A is picked after B
    if (!Late.empty() && Late[A] != Late[B])
      return bool(Late[A]);
    if (Ready[A] != Ready[B])
      return Ready[A] > Ready[B];
    if (Chain[A] != Chain[B])
      return Chain[A] < Chain[B];
    return A > B;
  };
  std::priority_queue<unsigned, std::vector<unsigned>, decltype(Later)> Heap(Later);
  for (size_t I = 0; I < N; ++I)
    if (!Pending[I])
      Heap.push(unsigned(I));
  std::vector<unsigned> Order;
  Order.reserve(N);
  uint64_t Now = 0;
  while (!Heap.empty()) {
    const unsigned Best = Heap.top();
    Heap.pop();
    Now += Cycles[Best];
    Order.push_back(Best);
    for (unsigned R : Readers[Best]) {
      Ready[R] = std::max(Ready[R], Now);
      if (--Pending[R] == 0)
        Heap.push(R);
    }
  }
  assert(Order.size() == N && "the layer graph has a cycle");
  return Order;
}
