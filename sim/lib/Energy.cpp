//===- Energy.cpp - Energy and power of a simulated run -------------------===//
//
// See Energy.h. The tables are embedded from sim/energy/*.yaml at build time
// (cmake/EmbedPresets.cmake), so the tools need no data files at run time.
//
//===----------------------------------------------------------------------===//

#include "snow/sim/Energy.h"
#include "snow/support/FileIO.h"
#include "snow/support/Yaml.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cmath>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

using namespace snow;
using namespace snow::sim;

namespace {

struct Builtin {
  const char *Name, *Text;
};
const Builtin Builtins[] = {
#include "snow/sim/EnergyTables.inc"
};

std::string builtinNames() {
  std::string S;
  for (const Builtin &B : Builtins)
    S += (S.empty() ? "" : ", ") + std::string(B.Name);
  return S;
}

llvm::Error energyError(const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

} // namespace

llvm::Expected<EnergyModel> snow::sim::parseEnergyModel(const std::string &Text,
                                                        const std::string &Name) {
  YAML::Node Root;
  try {
    snow::YamlDocument D = snow::loadOneDocument(Text);
    if (std::string Err = snow::extraDocumentError(D, Name); !Err.empty())
      return energyError(Err);
    Root = D.Root;
  } catch (const YAML::Exception &E) {
    return energyError(fmt::format("{}:{}: {}", Name, E.mark.line + 1, E.msg));
  }
  if (!Root.IsMap())
    return energyError(Name + ": an energy table is a map of keys (docs/energy.md)");
  EnergyModel M;
  struct Key {
    const char *Name;
    double EnergyModel::*Field;
  };
  const Key Numbers[] = {{"mac_pj", &EnergyModel::MacPj},
                         {"buffer_pj_per_bit", &EnergyModel::BufferPjPerBit},
                         {"dram_pj_per_byte", &EnergyModel::DramPjPerByte},
                         {"instruction_pj", &EnergyModel::InstructionPj},
                         {"static_w", &EnergyModel::StaticW}};
  for (const auto &KV : Root) {
    const std::string K = KV.first.as<std::string>("");
    const int Line = KV.first.Mark().line + 1;
    const YAML::Node &V = KV.second;
    if (K == "name" || K == "technology") {
      if (!V.IsScalar())
        return energyError(fmt::format("{}:{}: '{}' must be text", Name, Line, K));
      (K == "name" ? M.Name : M.Technology) = V.Scalar();
      continue;
    }
    const Key *Found = nullptr;
    for (const Key &N : Numbers)
      if (K == N.Name)
        Found = &N;
    if (!Found)
      return energyError(fmt::format("{}:{}: unknown key '{}' (keys: name, technology, mac_pj, "
                                     "buffer_pj_per_bit, dram_pj_per_byte, instruction_pj, "
                                     "static_w)",
                                     Name, Line, K));
    double X = NAN;
    if (V.IsScalar()) {
      llvm::StringRef S(V.Scalar());
      if (S.trim().getAsDouble(X))
        X = NAN;
    }
    if (!std::isfinite(X) || X < 0 || X > 1e6)
      return energyError(fmt::format("{}:{}: '{}' must be a number from 0 to 1e6, got '{}'", Name,
                                     Line, K, V.IsScalar() ? V.Scalar() : "a list or map"));
    M.*(Found->Field) = X;
  }
  for (const Key &N : Numbers)
    if (!Root[N.Name])
      return energyError(fmt::format("{}: missing key '{}'", Name, N.Name));
  if (M.Name.empty())
    return energyError(Name + ": missing key 'name'");
  return M;
}

std::optional<EnergyModel> snow::sim::builtinEnergyModel(const std::string &HwName) {
  // Parsed once: a sweep asks for every point it runs.
  // Tables are found by file name (sim/energy/NAME.yaml).
  static const std::vector<std::pair<std::string, EnergyModel>> Models = [] {
    std::vector<std::pair<std::string, EnergyModel>> V;
    for (const Builtin &B : Builtins) {
      auto M = parseEnergyModel(B.Text, std::string("sim/energy/") + B.Name + ".yaml");
      if (M) // Every built-in table parses: tests/sim/EnergyTest.cpp.
        V.emplace_back(B.Name, std::move(*M));
      else
        llvm::consumeError(M.takeError());
    }
    return V;
  }();
  for (const auto &[File, M] : Models)
    if (File == HwName)
      return M;
  return std::nullopt;
}

llvm::Expected<EnergyModel> snow::sim::loadEnergyModel(const std::string &NameOrPath) {
  if (auto M = builtinEnergyModel(NameOrPath))
    return *M;
  auto Buf = snow::readInputFile(NameOrPath, /*IsText=*/true);
  if (!Buf)
    return energyError(fmt::format("cannot read energy table '{}': {} (built-in tables: {})",
                                   NameOrPath, Buf.getError().message(), builtinNames()));
  return parseEnergyModel((*Buf)->getBuffer().str(), NameOrPath);
}

Energy snow::sim::energyOf(const EnergyModel &M, const isa::HwConfig &Hw, const EnergyEvents &E) {
  constexpr double Pj = 1e-12;
  const double Vmacs = double(Hw.cus()) * Hw.VmacsPerCu;
  Energy R;
  R.MacJ = double(E.MacCycles) * Hw.macs() * M.MacPj * Pj;
  // Per MAC cycle and vMAC: a weight word and a map value read.
  const double TraceBits = double(E.MacCycles) * Vmacs * (Hw.LanesPerVmac + 1) * 16;
  // A byte loaded is written into a buffer; a byte stored was written there by
  // the writeback and read out by the store.
  const double MoveBits = 8.0 * (double(E.DramReadBytes) + 2.0 * double(E.DramWriteBytes));
  R.BufferJ = (TraceBits + MoveBits) * M.BufferPjPerBit * Pj;
  R.DramJ = double(E.DramReadBytes + E.DramWriteBytes) * M.DramPjPerByte * Pj;
  R.ControlJ = double(E.Instructions) * M.InstructionPj * Pj;
  R.StaticJ = M.StaticW * double(E.Cycles) / (Hw.ClockMhz * 1e6);
  return R;
}

Energy snow::sim::energyOf(const EnergyModel &M, const isa::HwConfig &Hw, const SimStats &S) {
  // Fetched code is read from DRAM and written into the instruction memory
  // like any load (whole network only: fetches belong to no layer).
  return energyOf(M, Hw,
                  EnergyEvents{S.Cycles, S.MacCycles, S.DramReadBytes + S.DramCodeBytes,
                               S.DramWriteBytes, S.CtrlInstructions});
}

Energy snow::sim::energyOf(const EnergyModel &M, const isa::HwConfig &Hw, const LayerStats &L) {
  // Instructions are not counted per layer: a layer's share is its MACs',
  // and the control energy is a small part (docs/energy.md).
  return energyOf(M, Hw, EnergyEvents{L.Cycles, L.MacCycles, L.DramReadBytes, L.DramWriteBytes, 0});
}
