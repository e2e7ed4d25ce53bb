//===- Trace.cpp - A timeline of a simulated run: the recorder ------------===//
//
// The recorder keeps one list of slices per track, already merged at the
// finest level (contiguous operations of one kind and one layer), so memory
// grows with the changes of activity, not with the operations. Writing picks,
// track by track, the finest merge level whose slice count fits the track's
// share of the budget (docs/trace.md, "Merging and size"):
//   level 0  contiguous operations of one kind and one layer;
//   level 1  contiguous operations of one layer, any kind;
//   level 2  operations of one layer separated by gaps of at most G cycles,
//            G = 1, 2, 4, ... (the smallest that fits); such a slice is drawn
//            from its first operation's start for its busy cycles only, and
//            args.span_cycles gives the cycles to its last operation's end.
// (The writing is in TraceJson.cpp, apart because llvm/Support/JSON.h is
// not in the fuzzing build, see the top-level CMakeLists.txt.)
// Slices never merge across layers, so one slice per track and layer run is
// the floor. A slice's duration is always the busy cycles it stands for: the
// tracks add up to the unit counters of --stats-json at every level.
//
//===----------------------------------------------------------------------===//

#include "snow/sim/Trace.h"
#include "snow/isa/Timing.h"
#include <algorithm>
#include <fmt/format.h>

using namespace snow;
using namespace snow::sim;

TraceRecorder::TraceRecorder(const isa::Program &P, size_t MaxSlices)
    : Prog(P), MaxSlices(MaxSlices), OpKind(256, -1) {}

uint16_t TraceRecorder::kindOf(isa::Opcode Op) {
  int &K = OpKind[unsigned(Op)];
  if (K < 0) {
    K = int(Kinds.size());
    Kinds.push_back(isa::opInfo(Op).Mnemonic);
  }
  return uint16_t(K);
}

void TraceRecorder::add(Track T, uint16_t Kind, uint32_t Pc, uint32_t Layer, uint64_t Start,
                        uint64_t Busy) {
  std::vector<Slice> &V = Tracks[T];
  if (!V.empty()) {
    Slice &Last = V.back();
    if (Last.Kind == Kind && Last.Layer == Layer && Last.End == Start) {
      Last.End += Busy;
      Last.Busy += Busy;
      Last.PcLo = std::min(Last.PcLo, Pc);
      Last.PcHi = std::max(Last.PcHi, Pc);
      ++Last.Count;
      return;
    }
  }
  V.push_back({Start, Start + Busy, Busy, Layer, Pc, Pc, 1, Kind});
}

void TraceRecorder::unitOp(isa::Unit U, isa::Opcode Op, uint32_t Pc, uint32_t Layer, uint64_t Start,
                           uint64_t Dur) {
  if (Op == isa::Opcode::MARK)
    Marks.push_back({Layer, Start});
  Track T = U == isa::Unit::Load ? DmaIn : U == isa::Unit::Store ? DmaOut : Compute;
  add(T, kindOf(Op), Pc, Layer, Start, Dur);
}

void TraceRecorder::writeback(uint32_t Pc, uint32_t Layer, uint64_t Start, uint64_t Dur) {
  add(Writeback, kindOf(isa::Opcode::VWB), Pc, Layer, Start, Dur);
}

void TraceRecorder::dmaGrant(isa::Unit From, isa::Opcode Op, uint32_t Pc, uint32_t Layer,
                             uint64_t Post, uint64_t Grant, uint64_t Cycles) {
  uint16_t K = kindOf(Op);
  // The unit is occupied from posting the request to the end of its own
  // cycle after the grant (its wait_dram plus busy); the channel for the
  // transfer.
  add(From == isa::Unit::Load ? DmaIn : DmaOut, K, Pc, Layer, Post,
      Grant + timing::UnitOpCycles - Post);
  add(Dram, K, Pc, Layer, Grant, Cycles);
}

void TraceRecorder::fetchGrant(uint32_t Pc, uint32_t Layer, uint64_t Grant, uint64_t Cycles) {
  if (FetchKind < 0) {
    FetchKind = int(Kinds.size());
    Kinds.push_back("instruction fetch");
  }
  add(Dram, uint16_t(FetchKind), Pc, Layer, Grant, Cycles);
}

void TraceRecorder::ctrlStall(isa::Unit Full, uint32_t Layer, uint64_t From, uint64_t To) {
  int &K = StallKind[unsigned(Full)];
  if (K < 0) {
    K = int(Kinds.size());
    Kinds.push_back(Full == isa::Unit::Ctrl ? "waiting for instructions"
                                            : fmt::format("{} queue full", isa::unitName(Full)));
  }
  add(Ctrl, uint16_t(K), 0, Layer, From, To - From);
}
