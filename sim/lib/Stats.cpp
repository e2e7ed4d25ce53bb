//===- Stats.cpp - Finishing a run's statistics ---------------------------===//
//
// Shared by the simulator (Machine::closeStats) and the RTL harness, so the
// attribution rules of docs/architecture.md §3.5 and §4 exist once.
//
//===----------------------------------------------------------------------===//

#include "snow/sim/Stats.h"

using namespace snow;
using namespace snow::sim;

void snow::sim::initLayerStats(SimStats &S, const isa::Program &P) {
  S.Layers.clear();
  auto Layer = [&](std::string Name, std::string Type, uint64_t Macs) {
    LayerStats L;
    L.Name = std::move(Name);
    L.Type = std::move(Type);
    L.Macs = Macs;
    S.Layers.push_back(std::move(L));
  };
  for (const isa::LayerInfo &L : P.Layers)
    Layer(L.Name, L.Type, L.Macs);
  if (S.Layers.empty())
    Layer("(program)", "program", 0);
}

void snow::sim::finishStats(SimStats &S, const LayerMarks &Marks, const LayerStats &Prologue,
                            uint64_t TotalCycles) {
  S.Cycles = TotalCycles;
  for (UnitCycles *C : {&S.Load, &S.Compute, &S.Store}) {
    uint64_t Used = C->Busy + C->WaitSem + C->WaitDram + C->WaitAcc;
    C->Idle = TotalCycles > Used ? TotalCycles - Used : 0;
  }
  // Layer spans: from the cycle the compute unit reaches a layer's mark to the
  // next mark; cycles before the first mark belong to the first marked layer,
  // so the spans add up to the total exactly.
  for (size_t I = 0; I < Marks.size(); ++I) {
    uint64_t Begin = I == 0 ? 0 : Marks[I].second;
    uint64_t End = I + 1 < Marks.size() ? Marks[I + 1].second : TotalCycles;
    S.Layers[Marks[I].first].Cycles += End - Begin;
  }
  if (Marks.empty() && !S.Layers.empty())
    S.Layers[0].Cycles = TotalCycles;
  LayerStats &First = S.Layers[Marks.empty() ? 0 : Marks.front().first];
  First.MacCycles += Prologue.MacCycles;
  First.DramReadBytes += Prologue.DramReadBytes;
  First.DramWriteBytes += Prologue.DramWriteBytes;
  First.RailValues += Prologue.RailValues;
  First.Compute.Busy += Prologue.Compute.Busy;
  First.Compute.WaitSem += Prologue.Compute.WaitSem;
  First.Compute.WaitAcc += Prologue.Compute.WaitAcc;
  for (LayerStats &L : S.Layers) {
    uint64_t Used = L.Compute.Busy + L.Compute.WaitSem + L.Compute.WaitAcc;
    L.Compute.Idle = L.Cycles > Used ? L.Cycles - Used : 0;
  }
  S.Macs = 0;
  for (const LayerStats &L : S.Layers)
    S.Macs += L.Macs;
}
