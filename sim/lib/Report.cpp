//===- Report.cpp - Simulation report: paper-style table and JSON ---------===//
//
// Conventions: 1 MAC = 2 ops; utilization = MACs / (cycles x MACs of the
// array); "theoretical ms" is the time at 100 % utilization, as in the
// Snowflake paper's per-layer tables.
//
//===----------------------------------------------------------------------===//

#include "snow/sim/Report.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace snow;
using namespace snow::sim;

namespace {
struct Derived {
  double Mops, TheoryMs, ActualMs, Gops, Util;
};

/// The layers that only copy channels (isa::isChannelCopyType) and their
/// cycles: the array's time, no useful MACs (a YAML slice that is a view
/// runs no code and takes none).
struct Copies {
  unsigned Layers = 0;
  uint64_t Cycles = 0;
};
Copies channelCopies(const SimStats &S) {
  Copies C;
  for (const LayerStats &L : S.Layers)
    if (isa::isChannelCopyType(L.Type) && L.Cycles) {
      ++C.Layers;
      C.Cycles += L.Cycles;
    }
  return C;
}

Derived derive(uint64_t Macs, uint64_t Cycles, const isa::HwConfig &Hw) {
  Derived D;
  D.Mops = 2.0 * double(Macs) / 1e6;
  D.TheoryMs = double(Macs) / Hw.macs() / (Hw.ClockMhz * 1e3);
  D.ActualMs = double(Cycles) / (Hw.ClockMhz * 1e3);
  D.Gops = D.ActualMs > 0 ? D.Mops / D.ActualMs : 0; // M-ops per ms = G-ops/s
  D.Util = Cycles ? double(Macs) / (double(Cycles) * Hw.macs()) : 0;
  return D;
}
} // namespace

std::string snow::sim::formatReport(const SimStats &S, const isa::Program &P,
                                    const EnergyModel *E) {
  const isa::HwConfig &Hw = P.Hw;
  std::string Out;
  // The DRAM figure says what the timing charges: the pin rate and, where a
  // controller sustains less (dram_efficiency), that share.
  std::string Dram = fmt::format("DRAM {} GB/s", Hw.DramGbps);
  if (Hw.DramEfficiency < 1)
    Dram += fmt::format(" ({:.0f} % sustained)", Hw.DramEfficiency * 100);
  Out += fmt::format("model {} on {}: {} MACs ({} CU x {} vMAC x {} lanes), {} MHz, peak {:.1f} "
                     "G-ops/s, {}\n\n",
                     P.ModelName, Hw.Name, Hw.macs(), Hw.cus(), Hw.VmacsPerCu, Hw.LanesPerVmac,
                     Hw.ClockMhz, Hw.peakGops(), Dram);
  Out += fmt::format("{:<18} {:<8} {:>9} {:>10} {:>10} {:>9} {:>8} {:>10} {:>9}\n", "layer", "type",
                     "M-ops", "theory ms", "actual ms", "G-ops/s", "eff %", "cycles", "DRAM MB");
  for (const LayerStats &L : S.Layers) {
    Derived D = derive(L.Macs, L.Cycles, Hw);
    Out +=
        fmt::format("{:<18} {:<8} {:>9.1f} {:>10.3f} {:>10.3f} {:>9.1f} {:>8.2f} {:>10} {:>9.2f}\n",
                    L.Name.substr(0, 18), L.Type, D.Mops, D.TheoryMs, D.ActualMs, D.Gops,
                    100 * D.Util, L.Cycles, double(L.DramReadBytes + L.DramWriteBytes) / 1e6);
  }
  Derived T = derive(S.Macs, S.Cycles, Hw);
  Out +=
      fmt::format("{:<18} {:<8} {:>9.1f} {:>10.3f} {:>10.3f} {:>9.1f} {:>8.2f} {:>10} {:>9.2f}\n\n",
                  "total", "", T.Mops, T.TheoryMs, T.ActualMs, T.Gops, 100 * T.Util, S.Cycles,
                  double(S.DramReadBytes + S.DramWriteBytes) / 1e6);
  // One run computes P.Batch frames (snowc --batch): fps counts frames.
  const unsigned Batch = P.Batch;
  double Fps = T.ActualMs > 0 ? 1e3 * Batch / T.ActualMs : 0;
  double Gbps = T.ActualMs > 0 ? double(S.DramReadBytes + S.DramWriteBytes) / T.ActualMs / 1e6 : 0;
  Out += fmt::format("cycles {}  utilization {:.2f} %  {:.1f} G-ops/s  {:.1f} fps  (whole "
                     "network, batch {}, int16, 1 MAC = 2 ops)\n",
                     S.Cycles, 100 * T.Util, T.Gops, Fps, Batch);
  if (Batch > 1)
    Out += fmt::format("batch of {} frames in one run: {:.3f} ms a batch, {:.3f} ms a frame\n",
                       Batch, T.ActualMs, T.ActualMs / Batch);
  // The figure papers quote (Snowflake's tables among them): conv layers only.
  uint64_t ConvMacs = 0, ConvCycles = 0;
  for (const LayerStats &L : S.Layers)
    if (L.Type == "conv") {
      ConvMacs += L.Macs;
      ConvCycles += L.Cycles;
    }
  if (ConvCycles)
    Out += fmt::format("conv layers: utilization {:.2f} % (conv MACs / (conv cycles x {} MACs)), "
                       "{:.1f} G-ops, {} cycles\n",
                       100.0 * double(ConvMacs) / (double(ConvCycles) * Hw.macs()), Hw.macs(),
                       2.0 * double(ConvMacs) / 1e9, ConvCycles);
  if (const Copies C = channelCopies(S); C.Layers)
    Out += fmt::format("channel copies: {} layers (select, shuffle, slice), {} cycles ({:.1f} % "
                       "of the run), their MACs not counted as work\n",
                       C.Layers, C.Cycles, S.Cycles ? 100.0 * C.Cycles / S.Cycles : 0);
  Out += fmt::format("DRAM read {:.2f} MB, written {:.2f} MB, average {:.2f} GB/s, channel busy "
                     "{:.1f} %\n",
                     S.DramReadBytes / 1e6, S.DramWriteBytes / 1e6, Gbps,
                     S.Cycles ? 100.0 * S.DramBusyCycles / S.Cycles : 0);
  for (const isa::LayerInfo &L : P.Layers)
    if (L.Type == isa::HostSoftmaxType)
      Out += "softmax: runs on the host after the accelerator, not simulated; the output tensor "
             "holds the logits\n";
  auto Pct = [&](uint64_t V) { return S.Cycles ? 100.0 * V / S.Cycles : 0; };
  Out += fmt::format("compute unit: MAC {:.1f} %, other ops {:.1f} %, waiting on loads/stores "
                     "{:.1f} %, MAC pipeline drain {:.1f} %, idle {:.1f} %\n",
                     Pct(S.MacCycles), Pct(S.Compute.Busy - S.MacCycles), Pct(S.Compute.WaitSem),
                     Pct(S.Compute.WaitAcc), Pct(S.Compute.Idle));
  if (E && S.Cycles) {
    const Energy En = energyOf(*E, Hw, S);
    const double Seconds = T.ActualMs / 1e3;
    Out += fmt::format("energy (model '{}', whole network, batch {}, 1 MAC = 2 ops): {:.2f} mJ per "
                       "frame, {:.2f} W ({:.2f} W static), {:.1f} G-ops/J, {:.2f} frames/J\n",
                       E->Name, Batch, 1e3 * En.totalJ() / Batch, En.totalJ() / Seconds, E->StaticW,
                       2.0 * double(S.Macs) / 1e9 / En.totalJ(), Batch / En.totalJ());
  }
  return Out;
}

/// Energy fields: per-layer "energy_j" and the total's breakdown.
static llvm::json::Object energyJson(const Energy &En, double Seconds, uint64_t Macs) {
  return llvm::json::Object{
      {"energy_j", En.totalJ()},
      {"watts", Seconds > 0 ? En.totalJ() / Seconds : 0.0},
      {"gops_per_j", En.totalJ() > 0 ? 2e-9 * double(Macs) / En.totalJ() : 0.0},
      {"mac_j", En.MacJ},
      {"buffer_j", En.BufferJ},
      {"dram_j", En.DramJ},
      {"control_j", En.ControlJ},
      {"static_j", En.StaticJ}};
}

double snow::sim::saturatedFraction(const SimStats &S, const isa::Program &P, size_t I) {
  const isa::LayerInfo &L = P.Layers[I];
  const uint64_t N = uint64_t(L.OutC) * L.OutH * L.OutW * S.RailFrames;
  return N ? double(S.Layers[I].RailValues) / double(N) : 0.0;
}

llvm::json::Object snow::sim::toJsonObject(const SimStats &S, const isa::Program &P,
                                           const EnergyModel *E) {
  namespace json = llvm::json;
  const isa::HwConfig &Hw = P.Hw;
  Derived T = derive(S.Macs, S.Cycles, Hw);
  auto Units = [](const UnitCycles &C) {
    return json::Object{{"busy", int64_t(C.Busy)},
                        {"wait_sem", int64_t(C.WaitSem)},
                        {"wait_dram", int64_t(C.WaitDram)},
                        {"wait_acc", int64_t(C.WaitAcc)},
                        {"idle", int64_t(C.Idle)}};
  };
  json::Array Layers;
  for (size_t I = 0; I < S.Layers.size(); ++I) {
    const LayerStats &L = S.Layers[I];
    Derived D = derive(L.Macs, L.Cycles, Hw);
    uint64_t Bytes = L.DramReadBytes + L.DramWriteBytes;
    // Cycles the MAC array ran with lanes that had no useful work (channel
    // counts not filling the lanes, CUs without a tile, padding taps do count
    // as work by the MAC convention).
    double LanesIdle = double(L.MacCycles) - double(L.Macs) / Hw.macs();
    json::Object O{{"name", L.Name},
                   {"type", L.Type},
                   {"macs", int64_t(L.Macs)},
                   {"cycles", int64_t(L.Cycles)},
                   {"utilization", D.Util},
                   {"gops", D.Gops},
                   {"mac_cycles", int64_t(L.MacCycles)},
                   {"dram_read_bytes", int64_t(L.DramReadBytes)},
                   {"dram_write_bytes", int64_t(L.DramWriteBytes)},
                   {"dram_gbps", D.ActualMs > 0 ? double(Bytes) / D.ActualMs / 1e6 : 0.0},
                   {"ops_per_byte", Bytes ? 2.0 * double(L.Macs) / double(Bytes) : 0.0},
                   {"stalls", json::Object{{"mac", int64_t(L.MacCycles)},
                                           {"lanes_idle_equiv", std::max(0.0, LanesIdle)},
                                           {"other_ops", int64_t(L.Compute.Busy - L.MacCycles)},
                                           {"wait_dram", int64_t(L.Compute.WaitSem)},
                                           {"pipeline_drain", int64_t(L.Compute.WaitAcc)},
                                           {"ctrl_issue", int64_t(L.Compute.Idle)}}}};
    if (E)
      O["energy_j"] = energyOf(*E, Hw, L).totalJ();
    // Values are counted where they are stored: a layer that stores
    // nothing (its output stays on chip for a fused reader, or another
    // layer stores it: a concat) has no count of its own.
    if (S.RailsCounted && I < P.Layers.size() && L.DramWriteBytes > 0) {
      O["saturated"] = int64_t(L.RailValues);
      O["saturated_fraction"] = saturatedFraction(S, P, I);
    }
    Layers.push_back(std::move(O));
  }
  json::Object Root{
      {"hw", json::Object{{"name", Hw.Name},
                          {"macs", int64_t(Hw.macs())},
                          {"clock_mhz", Hw.ClockMhz},
                          {"peak_gops", Hw.peakGops()},
                          {"dram_gbps", Hw.DramGbps},
                          {"dram_efficiency", Hw.DramEfficiency}}},
      {"model", P.ModelName},
      {"total", json::Object{{"cycles", int64_t(S.Cycles)},
                             {"macs", int64_t(S.Macs)},
                             {"utilization", T.Util},
                             {"gops", T.Gops},
                             {"fps", T.ActualMs > 0 ? 1e3 * P.Batch / T.ActualMs : 0.0},
                             {"batch", int64_t(P.Batch)},
                             {"batch_ms", T.ActualMs},
                             {"frame_ms", T.ActualMs / P.Batch},
                             {"scope", fmt::format("whole network, batch {}, "
                                                   "int16, 1 MAC = 2 ops",
                                                   P.Batch)},
                             {"mac_cycles", int64_t(S.MacCycles)},
                             {"dram_read_bytes", int64_t(S.DramReadBytes)},
                             {"dram_write_bytes", int64_t(S.DramWriteBytes)},
                             {"dram_busy_cycles", int64_t(S.DramBusyCycles)},
                             {"ctrl_instructions", int64_t(S.CtrlInstructions)},
                             {"ctrl_stall_queue_full", int64_t(S.CtrlStallQueueFull)},
                             {"ctrl_stall_fetch", int64_t(S.CtrlStallFetch)},
                             {"dram_code_bytes", int64_t(S.DramCodeBytes)},
                             {"unit_ops", int64_t(S.UnitOps)},
                             {"channel_copy_cycles", int64_t(channelCopies(S).Cycles)}}},
      {"units", json::Object{{"load", Units(S.Load)},
                             {"compute", Units(S.Compute)},
                             {"store", Units(S.Store)}}},
      {"layers", std::move(Layers)}};
  if (S.RailsCounted)
    Root.getObject("total")->try_emplace("saturation_frames", int64_t(S.RailFrames));
  if (E) {
    json::Object &Total = *Root.getObject("total");
    json::Object En = energyJson(energyOf(*E, Hw, S), T.ActualMs / 1e3, S.Macs);
    for (auto &KV : En)
      Total[KV.first] = std::move(KV.second);
    Root["energy_model"] = json::Object{{"name", E->Name},
                                        {"technology", E->Technology},
                                        {"mac_pj", E->MacPj},
                                        {"buffer_pj_per_bit", E->BufferPjPerBit},
                                        {"dram_pj_per_byte", E->DramPjPerByte},
                                        {"instruction_pj", E->InstructionPj},
                                        {"static_w", E->StaticW}};
  }
  return Root;
}

std::string snow::sim::jsonText(llvm::json::Object Root) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Root))) << "\n";
  return OS.str();
}

std::string snow::sim::toJson(const SimStats &S, const isa::Program &P, const EnergyModel *E) {
  return jsonText(toJsonObject(S, P, E));
}
