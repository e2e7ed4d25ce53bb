//===- FuzzProgram.cpp - Fuzz target: the prog.bin loader and the simulator ===//
//
// Bytes as a prog.bin. The first byte chooses the mode: even, the bytes are
// loaded as they are (the checksum stops nearly all of them, which is what
// a damaged file meets); odd, the rest is loaded with its CRC footer
// recomputed, so the fuzzer reaches the section parser, the checks and the
// simulator, which runs the program for a bounded number of cycles.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "snow/isa/Program.h"
#include "snow/sim/Simulator.h"
#include "snow/support/Crc32.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 1)
    return 0;
  const bool FixCrc = Data[0] & 1;
  std::vector<uint8_t> Bytes(Data + 1, Data + Size);
  if (FixCrc && Bytes.size() >= 20) {
    uint32_t Crc = snow::crc32(llvm::ArrayRef<uint8_t>(Bytes).drop_back(4));
    for (unsigned I = 0; I < 4; ++I)
      Bytes[Bytes.size() - 4 + I] = uint8_t(Crc >> (8 * I));
  }
  auto P = snow::isa::deserialize(Bytes, "fuzz.bin");
  if (!snow::fuzz::ok(P))
    return 0;
  snow::sim::SimOptions Opts;
  Opts.MaxCycles = 200'000;
  // A functional run allocates the program's DRAM: the presets' 1 GiB would
  // take a second per input, so only small machines (the fuzzer can shrink
  // dram_mib in the embedded config) run with values.
  const bool Small = P->Hw.dramBytes() <= (uint64_t(64) << 20);
  for (bool TimingOnly : {true, false}) {
    if (!TimingOnly && !Small)
      break;
    Opts.TimingOnly = TimingOnly;
    auto S = snow::sim::Simulator::create(*P, Opts);
    if (!snow::fuzz::ok(S))
      return 0;
    auto Stats = (*S)->run();
    snow::fuzz::ok(Stats);
  }
  return 0;
}
