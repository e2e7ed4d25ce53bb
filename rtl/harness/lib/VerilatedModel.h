//===- VerilatedModel.h - The run loop over any Vsnow_<cfg> model --*- C++ -*-===//
//
// VerilatedModel<V, Params> drives the Verilated snow_top class V (one per
// hardware configuration, Params its package's constants): reset, code
// loading, then one loop per clock cycle that serves the DRAM port and
// collects the per-layer events. The port protocol (rtl/README.md):
//
//   * rst is synchronous; code is written through imem_* while it is high.
//     Cycle 0 of the program is the first rising edge with rst low.
//   * The per-layer events (ev_*) are combinational: between edges they say
//     what the next edge does in cycle cur_cycle. They are sampled before
//     each rising edge.
//   * After each rising edge the registered DRAM port holds a write (applied
//     at once) and a read request, answered on dram_rd_data before the next
//     edge.
//   * done (final counters valid) and faulted (code, pc, cycle, arguments)
//     are sticky.
//
// Following the Verilator examples, the context, model and trace are owned
// through unique_ptr and tracing is switched on only when asked for. Included
// only by the generated ModelVsnow_<cfg>.cpp files.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_RTL_VERILATEDMODEL_H
#define SNOW_RTL_VERILATEDMODEL_H

#include "RtlModel.h"
#include "verilated.h"
#if VM_TRACE_FST
#include "verilated_fst_c.h"
#endif
#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>

namespace snow::rtl {

// Reading and writing ports of any width: Verilator holds up to 64 bits in an
// integer and wider ones in VlWide (32-bit words, least significant first).
template <class T> inline uint64_t portWord64(const T &P, unsigned I) {
  static_assert(std::is_integral_v<T>);
  return I == 0 ? uint64_t(P) : 0;
}
template <std::size_t N> inline uint64_t portWord64(const VlWide<N> &P, unsigned I) {
  uint64_t Lo = 2 * I < N ? P.at(2 * I) : 0, Hi = 2 * I + 1 < N ? P.at(2 * I + 1) : 0;
  return Lo | Hi << 32;
}
/// Bytes of a port as little-endian memory (byte 0 = bits 7:0).
template <class T> inline const uint8_t *portBytes(const T &P) {
  static_assert(std::is_integral_v<T>);
  return reinterpret_cast<const uint8_t *>(&P); // little-endian hosts only
}
template <std::size_t N> inline const uint8_t *portBytes(const VlWide<N> &P) {
  return reinterpret_cast<const uint8_t *>(P.data());
}
template <class T> inline uint8_t *portBytes(T &P) {
  static_assert(std::is_integral_v<T>);
  return reinterpret_cast<uint8_t *>(&P);
}
template <std::size_t N> inline uint8_t *portBytes(VlWide<N> &P) {
  return reinterpret_cast<uint8_t *>(P.data());
}

template <class V, class Params> class VerilatedModel final : public RtlModel {
  using DataPort = std::remove_reference_t<decltype(std::declval<V &>().dram_rd_data)>;
  static constexpr unsigned Beat = unsigned(Params::BEAT_BYTES);
  static_assert(sizeof(DataPort) >= Beat, "dram_rd_data narrower than BEAT_BYTES");

public:
  const char *config() const override { return Params::Config; }
  uint64_t imemWords() const override { return uint64_t(1) << Params::IMEM_AW; }

  RunOutcome run(const RunInput &In, EventLog &Log) override {
    auto Ctx = std::make_unique<VerilatedContext>();
    Ctx->randReset(0); // X-initial values are zeros: runs are reproducible
#if VM_TRACE_FST
    std::unique_ptr<VerilatedFstC> Trace;
    if (!In.TraceFile.empty())
      Ctx->traceEverOn(true); // before the model is built
#endif
    auto M = std::make_unique<V>(Ctx.get(), "snow");
#if VM_TRACE_FST
    if (!In.TraceFile.empty()) {
      Trace = std::make_unique<VerilatedFstC>();
      M->trace(Trace.get(), 99);
      Trace->open(In.TraceFile.c_str());
    }
#endif
    auto Eval = [&] {
      M->eval();
#if VM_TRACE_FST
      if (Trace)
        Trace->dump(Ctx->time());
#endif
      Ctx->timeInc(1);
    };
    auto Tick = [&] {
      M->clk = 1;
      Eval();
      M->clk = 0;
      Eval();
    };

    // Reset, with the code written into the instruction memory meanwhile.
    const std::vector<isa::Word128> &Code = *In.Code;
    M->clk = 0;
    M->rst = 1;
    M->imem_we = 0;
    M->code_len = uint32_t(Code.size());
    M->num_layers = In.NumLayers;
    std::memset(portBytes(M->dram_rd_data), 0, sizeof(DataPort));
    Eval();
    Tick();
    for (size_t Pc = 0; Pc < Code.size(); ++Pc) {
      M->imem_we = 1;
      M->imem_waddr = uint32_t(Pc);
      std::memcpy(portBytes(M->imem_wdata), &Code[Pc].Lo, 8);
      std::memcpy(portBytes(M->imem_wdata) + 8, &Code[Pc].Hi, 8);
      Tick();
    }
    M->imem_we = 0;
    Tick();
    M->rst = 0;

    RunOutcome R;
    for (uint64_t T = 0;; ++T) {
      // As the simulator: a cycle past MaxCycles + 1 proves the program too
      // long, unless it has finished and only its last DRAM writes trail.
      if (T > In.MaxCycles + 1 && M->total_cycles == 0) {
        R.K = RunOutcome::Runaway;
        R.Pc = M->cur_pc;
        R.Cycle = T;
        break;
      }
      // The events are combinational: what the coming edge will do in the
      // current cycle (cur_cycle).
      if (M->ev_mark)
        Log.mark(M->ev_mark_layer, M->cur_cycle);
      if (M->ev_c) {
        sim::UnitCycles &C = Log.layer(Log.ComputeLayer).Compute;
        C.Busy += M->ev_c_busy;
        C.WaitSem += M->ev_c_wait_sem;
        C.WaitAcc += M->ev_c_wait_acc;
      }
      if (M->ev_mac)
        Log.layer(M->ev_mac_layer).MacCycles += M->ev_mac_cycles;
      if (M->ev_ld)
        Log.layer(M->ev_ld_layer).DramReadBytes += M->ev_ld_bytes;
      if (M->ev_st)
        Log.store(M->ev_st_layer, M->ev_st_bytes);
      M->clk = 1;
      Eval();
      if (M->faulted) {
        R.K = RunOutcome::Faulted;
        R.FaultCode = M->fault_code;
        R.Pc = M->fault_pc;
        R.CtrlPc = M->cur_pc;
        R.Cycle = M->fault_cycle;
        R.FaultArg[0] = M->fault_arg0;
        R.FaultArg[1] = M->fault_arg1;
        R.FaultArg[2] = M->fault_arg2;
        break;
      }
      if (M->dram_wr_en) {
        writeDram(In, M->dram_wr_addr, portBytes(M->dram_wr_data), M->dram_wr_strb);
        countWritten(Log, portBytes(M->dram_wr_data), M->dram_wr_strb);
      }
      if (M->dram_rd_en)
        readDram(In, M->dram_rd_addr, portBytes(M->dram_rd_data));
      if (M->done) {
        RtlCounters &C = R.Counters;
        C.TotalCycles = M->total_cycles;
        C.MacCycles = M->ctr_mac_cycles;
        C.DramBusy = M->ctr_dram_busy;
        C.CtrlInsts = M->ctr_ctrl_insts;
        C.UnitOps = M->ctr_unit_ops;
        C.CtrlStall = M->ctr_ctrl_stall;
        C.DramReadBytes = M->ctr_dram_rd_bytes;
        C.DramWriteBytes = M->ctr_dram_wr_bytes;
        C.FetchStall = M->ctr_fetch_stall;
        C.DramCodeBytes = M->ctr_dram_code_bytes;
        for (unsigned U = 0; U < 3; ++U) {
          C.Busy[U] = portWord64(M->ctr_busy, U);
          C.WaitSem[U] = portWord64(M->ctr_wait_sem, U);
          C.WaitDram[U] = portWord64(M->ctr_wait_dram, U);
          C.WaitAcc[U] = portWord64(M->ctr_wait_acc, U);
        }
        R.K = C.TotalCycles > In.MaxCycles ? RunOutcome::Runaway : RunOutcome::Done;
        R.Pc = M->cur_pc;
        R.Cycle = C.TotalCycles;
        break;
      }
      M->clk = 0;
      Eval();
    }
    M->final();
#if VM_TRACE_FST
    if (Trace)
      Trace->close();
#endif
    return R;
  }

private:
  /// BEAT_BYTES bytes from Addr; bytes past the end of DRAM read as 0.
  static void readDram(const RunInput &In, uint64_t Addr, uint8_t *Out) {
    std::memset(Out, 0, sizeof(DataPort));
    if (Addr < In.DramBytes)
      std::memcpy(Out, In.Dram + Addr, size_t(std::min<uint64_t>(Beat, In.DramBytes - Addr)));
  }
  /// The int16 values of a write beat (maps are 2-byte aligned, so a value
  /// never straddles beats), for the saturation count.
  template <class S> static void countWritten(EventLog &Log, const uint8_t *Data, const S &Strb) {
    for (unsigned I = 0; I + 1 < Beat; I += 2)
      if ((portWord64(Strb, I / 64) >> (I % 64)) & 1) {
        int16_t Value;
        std::memcpy(&Value, Data + I, 2);
        Log.written(Value);
      }
  }
  /// The bytes enabled in Strb, at Addr + i; bytes past the end are dropped
  /// (the RTL faults before it would write there).
  template <class S>
  static void writeDram(const RunInput &In, uint64_t Addr, const uint8_t *Data, const S &Strb) {
    bool Whole = Addr <= In.DramBytes && In.DramBytes - Addr >= Beat;
    for (unsigned W = 0; Whole && W < (Beat + 63) / 64; ++W) {
      uint64_t Want = Beat - W * 64 >= 64 ? ~uint64_t(0) : (uint64_t(1) << (Beat - W * 64)) - 1;
      Whole = (portWord64(Strb, W) & Want) == Want;
    }
    if (Whole) {
      std::memcpy(In.Dram + Addr, Data, Beat);
      return;
    }
    for (unsigned I = 0; I < Beat; ++I)
      if ((portWord64(Strb, I / 64) >> (I % 64)) & 1 && Addr + I < In.DramBytes)
        In.Dram[Addr + I] = Data[I];
  }
};

} // namespace snow::rtl

#endif
