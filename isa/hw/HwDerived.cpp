//===- HwDerived.cpp - Figures derived from a hardware config -------------===//
//
// What the planner, the simulators and the RTL's fault text compute from a
// validated HwConfig the same way: the DRAM channel's bytes a cycle in Q8
// and the cycles a transfer takes at it, the width of a DMA beat, and the
// one message for a weights load into pixel groups the machine cannot do.
// Loading, validating and printing configs is HwConfig.cpp.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/HwConfig.h"

#include <cassert>
#include <fmt/format.h>
#include <limits>

using namespace snow::isa;

std::string HwConfig::sumFault() const {
  return "sum=1 needs cu_sum_writeback (an adder tree across the CUs), which this hardware does "
         "not have";
}

std::string HwConfig::wpixFault(unsigned Wpix, unsigned Idx) const {
  if (Wpix == 0)
    return "";
  if (!WpixLoads)
    return fmt::format("wpix={} needs wpix_loads (weights loads into pixel groups), which this "
                       "machine does not have",
                       Wpix);
  if (Wpix >= 32 || VmacsPerCu % (1u << Wpix) != 0 || Idx >= (VmacsPerCu >> Wpix))
    return fmt::format("wpix={} and idx={} name no vMAC of {} pixel groups ({} vMACs per CU)", Wpix,
                       Idx, uint64_t(1) << Wpix, VmacsPerCu);
  return "";
}

uint32_t HwConfig::dramBwQ8() const {
  const double V = DramGbps * DramEfficiency * 1e9 / (ClockMhz * 1e6) * 256.0;
  // Only reachable for configs validate() rejects; keep the conversion defined.
  if (!(V >= 0) || V > double(std::numeric_limits<uint32_t>::max()))
    return 0;
  // std::round (halves away from zero) without the library call: every DMA
  // the planner and the simulator cost comes through here. Both the
  // truncation and V - I are exact.
  const uint32_t I = uint32_t(V);
  return I + (V - double(I) >= 0.5);
}

uint32_t HwConfig::dmaBeatBytes() const {
  const uint32_t PerCycle = (dramBwQ8() + 255) / 256;
  uint32_t B = weightWordBytes();
  while (B < PerCycle)
    B *= 2;
  return B;
}

uint64_t HwConfig::dramCyclesAt(uint32_t BwQ8, uint64_t Bytes) {
  const uint64_t Bw = BwQ8;
  assert(Bw && "dramCycles on a config that failed validate()");
  // ceil(Bytes * 256 / Bw), split so Bytes * 256 cannot overflow.
  uint64_t Q = Bytes / Bw, R = Bytes % Bw;
  return Q * 256 + (R * 256 + Bw - 1) / Bw;
}
