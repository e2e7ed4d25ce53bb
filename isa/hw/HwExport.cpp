//===- HwExport.cpp - Hardware configs for scripts and docs ---------------===//
//
// The keys are read back from toYaml (which walks HwConfig.cpp's key table)
// rather than listed again here, so a key added to the table appears in the
// JSON without an edit; derived values call HwConfig's own functions.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/HwExport.h"
#include "snow/isa/IsaConstants.h"
#include "llvm/ADT/StringRef.h"
#include <algorithm>
#include <cassert>
#include <charconv>
#include <fmt/format.h>

using namespace snow::isa;

namespace {

/// A canonical YAML scalar as a JSON value: integers and decimals as numbers,
/// anything else (the name) as a string.
llvm::json::Value scalar(llvm::StringRef S) {
  int64_t I = 0;
  auto [IEnd, IEc] = std::from_chars(S.begin(), S.end(), I);
  if (IEc == std::errc() && IEnd == S.end())
    return I;
  double D = 0;
  auto [DEnd, DEc] = std::from_chars(S.begin(), S.end(), D);
  if (DEc == std::errc() && DEnd == S.end())
    return D;
  return S.str();
}

} // namespace

llvm::json::Object snow::isa::hwConfigJson(const HwConfig &C) {
  llvm::json::Object O;
  std::string Text = C.toYaml();
  for (llvm::StringRef Rest = Text; !Rest.empty();) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    auto [Key, Value] = Line.split(": ");
    assert(!Key.empty() && "toYaml writes 'key: value' lines");
    O[Key.str()] = Key == "name" ? llvm::json::Value(Value.str()) : scalar(Value);
  }
  O["derived"] = llvm::json::Object{
      {"cus", C.cus()},
      {"macs", C.macs()},
      {"peak_gops", C.peakGops()},
      {"maps_elems", C.mapsElems()},
      {"maps_bank_elems", C.mapsBankElems()},
      {"weight_word_bytes", C.weightWordBytes()},
      {"weights_words", C.weightsWords()},
      {"weights_bank_words", C.weightsBankWords()},
      {"writeback_cycles_per_entry", C.writebackCyclesPerEntry()},
      {"dram_bytes", int64_t(C.dramBytes())},
      {"dram_bw_q8", C.dramBwQ8()},
      {"dma_beat_bytes", C.dmaBeatBytes()},
      {"onchip_bytes", int64_t(C.onchipBytes())},
  };
  return O;
}

llvm::json::Object snow::isa::isaConstantsJson() {
  llvm::json::Object O;
  for (const IsaConstant &K : AllIsaConstants)
    O[K.Name] = K.Value;
  return O;
}

std::string snow::isa::hwPresetTable() {
  std::string S =
      "| preset | shape (clusters × CUs × vMACs × lanes) | MACs | clock | peak GOPS | DRAM "
      "(nominal × sustained share) | DRAM B/cycle (`dramBwQ8`) | trace start-up, row granule, "
      "read ports, writeback words | on-chip use / budget |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  // zc706 first: it is the reference the others are based on.
  std::vector<std::string> Names = hwPresetNames();
  std::stable_partition(Names.begin(), Names.end(),
                        [](const std::string &N) { return N == zc706::name; });
  for (const std::string &N : Names) {
    auto C = loadHwConfig(N);
    assert(C && "built-in presets are valid (tests/hw)");
    if (!C) {
      llvm::consumeError(C.takeError());
      continue;
    }
    S += fmt::format("| `{}` | {} × {} × {} × {} | {} | {} MHz | {} | {} GB/s × {} | {:.3g} ({}) | "
                     "{}, {}, {}{}, {} | {} / {} KiB |\n",
                     C->Name, C->Clusters, C->CusPerCluster, C->VmacsPerCu, C->LanesPerVmac,
                     C->macs(), C->ClockMhz, C->peakGops(), C->DramGbps, C->DramEfficiency,
                     C->dramBwQ8() / 256.0, C->dramBwQ8(), C->TraceStartupCycles,
                     C->TraceRowGranule, C->MapsReadPorts, C->MapsPortsPerBank ? " a bank" : "",
                     C->WritebackWords, (C->onchipBytes() + 1023) / 1024, C->OnchipBudgetKib);
  }
  return S;
}
