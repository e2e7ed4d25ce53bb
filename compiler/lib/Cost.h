//===- Cost.h - The planner's cost model ---------------------------*- C++ -*-===//
//
// Estimates of a layer plan's cycles and DRAM bytes (Cost.cpp explains the
// model). The simulator, not this estimate, is the judge; the estimate only
// has to rank plans. Internal to snow_compiler.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_COST_H
#define SNOW_COMPILER_COST_H

#include "Rounds.h"

namespace snow::compiler {

/// A plan's estimated cycles and DRAM bytes. Plans are ranked by Score:
/// the cycles plus a sixteenth of the channel time of the bytes. The estimate
/// is good to a percent or two, so between plans that close the one that
/// moves less data wins: it leaves the channel to the prefetches and stores
/// of the layers around it (and costs less energy).
struct Cost {
  uint64_t Cycles = UINT64_MAX, Bytes = UINT64_MAX, Score = UINT64_MAX;
  Cost() = default;
  Cost(uint64_t Cycles, uint64_t Bytes, const isa::HwConfig &Hw)
      : Cycles(Cycles), Bytes(Bytes), Score(Cycles + Hw.dramCycles(Bytes) / 16) {}
  bool operator<(const Cost &O) const {
    return Score != O.Score ? Score < O.Score : Cycles < O.Cycles;
  }
};

/// A conv plan's cost; Bound is the best score so far (a plan whose quick
/// bound cannot beat it is not played through).
Cost convCost(const LayerPlan &P, const RoundSummary &S, const isa::HwConfig &Hw, uint64_t Bound);
/// A conv plan's cycles on the compute unit, its rounds as built.
uint64_t convComputeCycles(const LayerPlan &P, const isa::HwConfig &Hw);
/// Channel cycles conv plan P's first weights (its first round's output
/// groups, first chunk) take beyond a prefetch window of Window cycles
/// under the layer before.
uint64_t firstWeightsExposed(const LayerPlan &P, const isa::HwConfig &Hw, uint64_t Window);
/// A pooling plan's cost: max(compute, DRAM).
Cost poolCost(const LayerPlan &P, const isa::HwConfig &Hw);
/// The DRAM bytes of a plan that loads each tile's input window once, all
/// its input channels, and stores its output once: pooling and depthwise
/// plans (their costs are at least this transfer).
uint64_t windowBytes(const LayerPlan &P);
/// The cost of windowBytes(P) on the channel alone: a lower bound on the
/// cost of such a plan, known once its tile is set (before its rounds are
/// made), which lets a search skip tiles whose halo cannot win.
Cost transferBound(const LayerPlan &P, const isa::HwConfig &Hw);
/// An elementwise plan's cost (Operands tensors loaded, each input preloaded
/// or multiplied into the accumulators, then written back): max(compute,
/// DRAM).
Cost elementwiseCost(const LayerPlan &P, unsigned Operands, const isa::HwConfig &Hw);
/// A GroupChunks plan's cost: each step (round, one of its output group's
/// chunks) costs the larger of its traces and its DRAM transfers (maps,
/// weights, the previous step's stores), steps overlapping.
Cost groupChunksCost(const LayerPlan &P, const isa::HwConfig &Hw);
/// A depthwise plan's cost (vdw traces over the window, one writeback per
/// pixel): max(compute, DRAM).
Cost depthwiseCost(const LayerPlan &P, const isa::HwConfig &Hw);

/// What a pooling plan costs beside a conv (PipelinePools.cpp): its traffic
/// hides under the conv's traces, its windows still take the compute unit.
uint64_t besideCost(const LayerPlan &Pool, const isa::HwConfig &Hw);
/// Plan Q's estimated cycles apart from a fusion with layer Host: a pool
/// beside Host (PipelinePools.cpp) costs only its windows there.
inline uint64_t cyclesBeside(const LayerPlan &Q, unsigned Host, const isa::HwConfig &Hw) {
  return Q.BesideOf == int(Host) ? besideCost(Q, Hw) : Q.EstCycles;
}
/// The compute cycles of the block means a conv averages for the pool it
/// hosts (LayerPlan::PoolBlock; 0: none).
uint64_t blockMeanCycles(const LayerPlan &P, const isa::HwConfig &Hw);

/// The channel cycles the last of conv P's Steps steps leaves idle: its
/// share of P's estimate less its share of P's stores (a last step
/// prefetches no maps).
uint64_t lastStepIdle(const LayerPlan &P, uint64_t Steps, const isa::HwConfig &Hw);
/// The cycles a load queued behind the maps of the last of plan Q's Steps
/// steps hides under: a pool's windows (besideCost), nothing for others.
uint64_t lastStepHide(const LayerPlan &Q, uint64_t Steps, const isa::HwConfig &Hw);

/// The input bytes of a fused pair's producer D's first group of tiles
/// (one a CU), all its chunks.
uint64_t firstGroupBytes(const LayerPlan &D, const isa::HwConfig &Hw);
/// A fused depthwise / 1x1 pair's cost (Fuse.cpp; Ps: every 1x1 conv that
/// reads the depthwise conv): the depthwise traces of every chunk and the
/// 1x1 traces of every output group share the compute
/// unit, the depthwise maps, both layers' weights and the 1x1 stores the
/// DRAM channel; the depthwise output moves through neither. max(compute,
/// DRAM), plus the first tile's loads.
/// With Shares, also each plan's part of the cycles (D's, then Ps' in order);
/// with Compute, the compute unit's cycles of both layers.
Cost fusedCost(const LayerPlan &D, const std::vector<LayerPlan> &Ps, const isa::HwConfig &Hw,
               std::vector<uint64_t> *Shares = nullptr, uint64_t *Compute = nullptr);

/// A concat pair (FuseConcat.cpp): per group of tiles, the producers Ds
/// (the convs the concat joins) write their channels into the area, then
/// the 1x1 convs Ps read it there. As a dense pair (fusedCost), a
/// producers' phase (their compute against their weights on the channel)
/// and a readers' phase (their compute against their weights, stores and
/// the next group's producer maps), each the longer of the two, plus the
/// first group's maps. With Shares, each plan's part of the cycles (Ds',
/// then Ps').
Cost concatPairCost(const std::vector<LayerPlan> &Ds, const std::vector<LayerPlan> &Ps,
                    const isa::HwConfig &Hw, std::vector<uint64_t> *Shares = nullptr);

/// A window pair (FuseWindows.cpp): D computes each tile's window of its
/// reader Q, a pool or a depthwise conv, into the area (overlapping windows
/// twice), Q reads it there and stores. The compute unit runs both, the
/// channel moves D's windows (again where a round's tiles change), the
/// weights (once for a pool's producer; D's and Q's every round for a
/// depthwise reader, D's exposed beyond Q's short steps) and Q's output:
/// max(compute, DRAM), plus the first group's loads. With Shares, D's part
/// of the cycles, then Q's. With Proj (a block triple, FuseBlocks.cpp) Q
/// stores nothing: Proj, a 1x1 conv, reads Q's output groups on chip, a
/// chunk a round, its compute and weights join, and its output (and
/// residual) cross the channel instead of Q's; Shares then has its part
/// too.
Cost windowPairCost(const LayerPlan &D, const LayerPlan &Q, const isa::HwConfig &Hw,
                    std::vector<uint64_t> *Shares = nullptr, const LayerPlan *Proj = nullptr);

/// A split block triple (FuseBlocks.cpp: bestSplitTriple): the map is one
/// tile on every CU, D's output groups side by side a round, Q's outputs
/// kept in the area, then Proj (LayerPlan::Parts) over them. The channel
/// moves D's input once, every plan's weights once (D's and Q's a round,
/// exposed beyond Q's step; Proj's a step, beyond the step before) and
/// Proj's output (and residual). With Shares, the three plans' parts.
Cost splitTripleCost(const LayerPlan &D, const LayerPlan &Q, const LayerPlan &Proj,
                     const isa::HwConfig &Hw, std::vector<uint64_t> *Shares = nullptr);

} // namespace snow::compiler

#endif
