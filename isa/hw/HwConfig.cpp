//===- HwConfig.cpp - Loading, validating and printing hardware configs ---===//
//
// One table (HwKeys) lists every YAML key with the member it sets, its unit,
// its simple range and its meaning. The parser, toYaml, validate and the
// documentation table (hwConfigKeyTable, pinned against
// docs/hardware-config.md by a test) all walk that table, so a key added or
// renamed in one place cannot be forgotten in another.
//
// Parsing is strict on purpose: a misspelled key silently ignored would mean
// simulating a machine other than the one the user described. Every error
// carries file:line and the offending text in quotes.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/HwConfig.h"
#include "snow/isa/IsaConstants.h"
#include "snow/isa/Word.h"
#include "snow/support/FileIO.h"
#include "snow/support/Yaml.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <variant>
#include <yaml-cpp/yaml.h>

using namespace snow::isa;

namespace {

using Member = std::variant<std::string HwConfig::*, unsigned HwConfig::*, double HwConfig::*>;

constexpr unsigned NoMax = std::numeric_limits<unsigned>::max();

/// One YAML key. Min/Max/Pow2 are checked generically for unsigned keys (and
/// Min > 0 means "strictly positive" for doubles); Rule describes the
/// cross-key constraints validate() checks by hand, for the docs table.
struct KeyInfo {
  const char *Key;
  Member M;
  const char *Unit;
  unsigned Min, Max;
  bool Pow2;
  const char *Rule;
  const char *Doc;
};

// Order here is the order of toYaml and of the docs table; name comes first so
// a canonical config reads as "which machine" before "what shape".
const KeyInfo HwKeys[] = {
    {"name", &HwConfig::Name, "text", 0, 0, false,
     "letters, digits, `_`, `.`, `-`, starting with a letter or digit",
     "Name of the configuration, shown in reports"},
    {"clock_mhz", &HwConfig::ClockMhz, "MHz", 1, 0, false, "",
     "Core clock; converts DRAM bandwidth to bytes per cycle"},
    // The limits from Snow.td (MaxCus, MaxVmacs, MaxRows) are named in the
    // docs table rather than restated; docs/isa.md lists their values.
    {"clusters", &HwConfig::Clusters, "count", 1, MaxCus, false,
     "clusters × cus_per_cluster ≤ `MaxCus`", "Compute clusters"},
    {"cus_per_cluster", &HwConfig::CusPerCluster, "count", 1, MaxCus, false,
     "clusters × cus_per_cluster ≤ `MaxCus` (a CU mask has one bit per CU)",
     "Compute units (CUs) per cluster; each CU has its own maps buffer"},
    {"vmacs_per_cu", &HwConfig::VmacsPerCu, "count", 1, MaxVmacs, false, "",
     "Vector MAC units per CU; each has its own weights buffer and accumulators"},
    {"lanes_per_vmac", &HwConfig::LanesPerVmac, "count", 1, 64, true, "",
     "16-bit MAC lanes per vMAC; a weights word holds one int16 per lane"},
    {"maps_buffer_kib", &HwConfig::MapsBufferKib, "KiB", 1, NoMax, false, "",
     "Maps (activation) buffer per CU, int16 elements"},
    {"maps_banks", &HwConfig::MapsBanks, "count", 1, NoMax, true,
     "divides the maps buffer's elements", "Banks per maps buffer; hazards are tracked per bank"},
    {"weights_buffer_kib", &HwConfig::WeightsBufferKib, "KiB", 1, NoMax, false, "",
     "Weights buffer per vMAC"},
    {"weights_banks", &HwConfig::WeightsBanks, "count", 1, NoMax, true,
     "divides the weights buffer's words; each bank ≥ 1 word",
     "Banks per weights buffer; hazards are tracked per bank"},
    {"acc_entries", &HwConfig::AccEntries, "entries", 1, MaxRows, false, "",
     "Accumulators per lane (the `rows` field addresses them: at most `MaxRows`)"},
    {"acc_bits", &HwConfig::AccBits, "bits", 32, 64, false, "",
     "Accumulator width; sums wrap at this width"},
    {"dram_gbps", &HwConfig::DramGbps, "GB/s (1e9 B/s)", 1, 0, false,
     "dram_gbps × dram_efficiency rounds to ≥ 1/256 byte per cycle",
     "Nominal DRAM bandwidth (the interface's pin rate)"},
    {"dram_efficiency", &HwConfig::DramEfficiency, "fraction", 1, 0, false, "≤ 1",
     "Share of `dram_gbps` the memory controller sustains (refresh, row switches, read/write "
     "turnarounds): the channel moves dram_gbps × dram_efficiency"},
    {"dram_latency_cycles", &HwConfig::DramLatencyCycles, "cycles", 1, NoMax, false, "",
     "Latency of every DMA transfer after its channel time; pipelined"},
    {"dram_burst_bytes", &HwConfig::DramBurstBytes, "bytes", 8, NoMax, true, "",
     "DRAM burst; every DMA row (or span of rows, `dma_merge_rows`) is rounded out to whole "
     "aligned bursts"},
    {"dma_merge_rows", &HwConfig::DmaMergeRows, "0 or 1", 0, 1, false, "",
     "1: a DMA whose rows follow each other in DRAM (its DRAM stride equals its row's bytes: a "
     "run of pixels gathered from, or scattered to, strided buffer rows) moves them as one span "
     "rounded out to bursts, at least one cycle per row's beat; 0: every row is rounded out on "
     "its own"},
    {"dram_mib", &HwConfig::DramMib, "MiB", 1, 4096, false, "", "DRAM size (addresses are 32-bit)"},
    {"queue_depth", &HwConfig::QueueDepth, "entries", 2, 1024, false, "", "Entries per unit queue"},
    {"mac_pipeline_depth", &HwConfig::MacPipelineDepth, "cycles", 1, NoMax, false, "",
     "Cycles from a trace's last issue to its accumulator write"},
    {"trace_startup_cycles", &HwConfig::TraceStartupCycles, "cycles", 0, 1024, false, "",
     "Cycles a MAC trace (`vmac`, `vmacp`, `vdw`) holds the compute unit before its first MAC "
     "(decode into the address generator, the maps buffer's registered read)"},
    {"trace_lookahead", &HwConfig::TraceLookahead, "0 or 1", 0, 1, false, "",
     "1: a MAC trace that starts in the cycle the MAC trace before it ends, and was in the "
     "compute queue in that trace's last cycle, skips a cycle of its start-up: the sequencer "
     "loads its counters and first read address during that last tap (whose read was issued "
     "the cycle before); 0: every trace pays `trace_startup_cycles`"},
    {"trace_row_granule", &HwConfig::TraceRowGranule, "elements", 1, 64, true, "",
     "A `vmac` / `vmacp` trace row of len map elements takes ⌈len / trace_row_granule⌉ × "
     "trace_row_granule steps, the rest of the last granule idle (1: one element a step)"},
    {"maps_read_ports", &HwConfig::MapsReadPorts, "addresses", 1, MaxVmacs, false, "",
     "Distinct read addresses a CU's maps buffer (or each of its banks, `maps_ports_per_bank`) "
     "serves per cycle to traces: a `vmacp` of 2^pix pixel groups in one bank takes ⌈2^pix / "
     "maps_read_ports⌉ cycles a step"},
    {"maps_ports_per_bank", &HwConfig::MapsPortsPerBank, "0 or 1", 0, 1, false, "",
     "1: each maps bank has `maps_read_ports` read addresses of its own, and a `vmacp` whose "
     "pixel groups each read a bank of their own (cstride a nonzero multiple of the bank, group "
     "0's reads within one bank) takes one cycle a step; 0: the ports serve the whole buffer"},
    {"wpix_loads", &HwConfig::WpixLoads, "0 or 1", 0, 1, false, "",
     "1: an `ld.wgt` with `wpix` > 0 writes its words into vMAC `idx` of each of the 2^wpix "
     "pixel groups of a `vmacp` at once (the weights buffers' write enables, one DRAM "
     "transfer); 0: `wpix` must be 0, and a layer on multi-pixel traces loads its weights "
     "once per pixel group"},
    {"writeback_words", &HwConfig::WritebackWords, "lane words", 1, MaxVmacs, false, "",
     "Accumulator words per cycle the writeback (`vwb`), preload (`vpre`) and product (`vmul`) "
     "move per CU, "
     "through a maps port of as many lane words: each accumulator entry takes "
     "⌈vmacs_per_cu / writeback_words⌉ cycles"},
    {"cu_sum_writeback", &HwConfig::CuSumWriteback, "0 or 1", 0, 1, false, "",
     "1: a `vwb` with `sum` writes, into every CU it writes, the sum over all CUs of the "
     "accumulator words it reads (an adder tree across the CUs in the writeback path: CUs "
     "that traced shares of a conv's input channels write the whole sums); 0: `sum` must be "
     "0"},
    {"writeback_overlap", &HwConfig::WritebackOverlap, "0 or 1", 0, 1, false, "",
     "1: a `vwb` holds the compute unit one cycle and writes back beside the operations after "
     "it; a MAC trace waits for it only where it reads a maps bank the `vwb` writes or "
     "accumulates into an entry the `vwb` has yet to read, and the other compute operations "
     "until it is done (docs/architecture.md §3.2); 0: a `vwb` holds the unit until done"},
    {"pool_words", &HwConfig::PoolWords, "lane words", 1, MaxVmacs, false, "≤ `writeback_words`",
     "Lane words of channels a `vmax` / `vavg` computes at once per CU (its `words` field + 1 "
     "at most; vMACs' words beyond `vmacs_per_cu` do not exist): the max / average unit's "
     "width, read from the maps port the vMACs' `vdw` reads use and written through the "
     "writeback's port; each window tap takes a cycle whatever the width"},
    {"imem_kib", &HwConfig::ImemKib, "KiB", 0, 65536, false,
     "0, or (imem_kib × 1024) / (16 × fetch_block_insts) a power of two ≥ 2",
     "On-chip instruction memory, direct-mapped, filled from code in DRAM over the DMA channel "
     "(0: code preloaded whole and fetched for free, the idealized model)"},
    {"fetch_block_insts", &HwConfig::FetchBlockInsts, "instructions", 1, 4096, true,
     "× 16 bytes a multiple of `dram_burst_bytes`",
     "Instructions one fetch moves from DRAM: a line of the instruction memory"},
    // An int16 activation has at most 15 fraction bits (Q0.15).
    {"act_frac_bits", &HwConfig::ActFracBits, "bits", 0, std::numeric_limits<int16_t>::digits,
     false, "", "Default activation format Q(15-f).f: fraction bits of int16 activations"},
    {"onchip_budget_kib", &HwConfig::OnchipBudgetKib, "KiB", 1, 4194303, false,
     "≥ total on-chip bytes (maps + weights + accumulators + queues + instruction memory)",
     "Budget for all buffers and accumulators together"},
};

const char *const BaseKey = "base";
// A chain of bases longer than this is a cycle (presets only ever nest once).
constexpr unsigned MaxBaseDepth = 8;

struct Preset {
  const char *Name;
  const char *Text;
};

const Preset Presets[] = {
#include "snow/hw/Presets.inc"
};

llvm::Error makeError(const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

const KeyInfo *findKey(llvm::StringRef Key) {
  for (const KeyInfo &K : HwKeys)
    if (Key == K.Key)
      return &K;
  return nullptr;
}

template <typename T> const char *keyOf(T HwConfig::*M) {
  for (const KeyInfo &K : HwKeys)
    if (const auto *P = std::get_if<T HwConfig::*>(&K.M); P && *P == M)
      return K.Key;
  assert(false && "member missing from HwKeys");
  return "?";
}

const Preset *findPreset(llvm::StringRef Name) {
  for (const Preset &P : Presets)
    if (Name == P.Name)
      return &P;
  return nullptr;
}

std::string presetList() {
  std::string S;
  for (const std::string &N : hwPresetNames())
    S += (S.empty() ? "" : ", ") + N;
  return S;
}

std::string presetFile(const Preset &P) { return fmt::format("isa/presets/{}.yaml", P.Name); }

/// The closest known key within a small edit distance, for "did you mean".
std::string suggestKey(llvm::StringRef Key) {
  std::string Best;
  unsigned BestDist = 3; // More than two edits away is not a typo.
  auto Consider = [&](llvm::StringRef Cand) {
    unsigned D = Key.edit_distance(Cand, true, BestDist);
    if (D < BestDist) {
      BestDist = D;
      Best = Cand.str();
    }
  };
  for (const KeyInfo &K : HwKeys)
    Consider(K.Key);
  Consider(BaseKey);
  return Best;
}

std::string formatValue(const HwConfig &C, const KeyInfo &K) {
  return std::visit([&](auto M) { return fmt::format("{}", C.*M); }, K.M);
}

/// How a YAML value node reads in an error: its text, or what it is instead.
std::string describeNode(const YAML::Node &N) {
  if (N.IsScalar())
    return fmt::format("'{}'", N.Scalar());
  if (N.IsSequence())
    return "a list";
  if (N.IsMap())
    return "a map";
  return "nothing";
}

std::optional<unsigned> parseUnsigned(const std::string &S) {
  unsigned V = 0;
  auto [End, Ec] = std::from_chars(S.data(), S.data() + S.size(), V);
  if (S.empty() || Ec != std::errc() || End != S.data() + S.size())
    return std::nullopt;
  return V;
}

std::optional<double> parseDouble(const std::string &S) {
  double V = 0;
  auto [End, Ec] = std::from_chars(S.data(), S.data() + S.size(), V);
  if (S.empty() || Ec != std::errc() || End != S.data() + S.size() || !std::isfinite(V))
    return std::nullopt;
  return V;
}

/// A parsed config plus where each key was set in the top-level text, so that
/// validate errors can point at the offending line.
struct Parsed {
  HwConfig C;
  std::map<std::string, unsigned> KeyLines; ///< 1-based.
};

llvm::Expected<Parsed> parseImpl(const std::string &Text, const std::string &File, unsigned Depth);

llvm::Expected<Parsed> parseBase(const YAML::Node &V, const std::string &File, unsigned Depth) {
  unsigned Line = V.Mark().line + 1;
  if (!V.IsScalar())
    return makeError(fmt::format("{}:{}: key 'base': expected a preset name, got {}", File, Line,
                                 describeNode(V)));
  const Preset *P = findPreset(V.Scalar());
  if (!P)
    return makeError(fmt::format("{}:{}: unknown base preset '{}' (presets: {})", File, Line,
                                 V.Scalar(), presetList()));
  if (Depth >= MaxBaseDepth)
    return makeError(fmt::format("{}:{}: base presets nest more than {} deep at '{}' (a cycle?)",
                                 File, Line, MaxBaseDepth, V.Scalar()));
  auto Base = parseImpl(P->Text, presetFile(*P), Depth + 1);
  if (!Base)
    return Base.takeError();
  // Lines of the base refer to another file; only this file's lines are kept.
  Base->KeyLines.clear();
  return Base;
}

llvm::Error setKey(HwConfig &C, const KeyInfo &K, const YAML::Node &V, const std::string &File,
                   unsigned KeyLine) {
  // A missing value ("clusters:") is marked at the next line; blame the key.
  unsigned Line = V.IsNull() ? KeyLine : V.Mark().line + 1;
  auto Bad = [&](const char *Expected) {
    return makeError(fmt::format("{}:{}: key '{}': expected {}, got {}", File, Line, K.Key,
                                 Expected, describeNode(V)));
  };
  if (auto *M = std::get_if<std::string HwConfig::*>(&K.M)) {
    if (!V.IsScalar())
      return Bad("a name");
    C.**M = V.Scalar();
  } else if (auto *M = std::get_if<unsigned HwConfig::*>(&K.M)) {
    std::optional<unsigned> U = V.IsScalar() ? parseUnsigned(V.Scalar()) : std::nullopt;
    if (!U)
      return Bad("an unsigned integer");
    C.**M = *U;
  } else {
    auto *D = std::get_if<double HwConfig::*>(&K.M);
    std::optional<double> X = V.IsScalar() ? parseDouble(V.Scalar()) : std::nullopt;
    if (!X)
      return Bad("a number");
    C.**D = *X;
  }
  return llvm::Error::success();
}

llvm::Expected<Parsed> parseDocument(const YAML::Node &Doc, const std::string &File,
                                     unsigned Depth) {
  if (!Doc.IsMap())
    return makeError(fmt::format("{}:{}: expected a map of 'key: value' lines, got {}", File,
                                 Doc.Mark().line + 1, describeNode(Doc)));
  // First pass: keys are known, scalar and unique; find the base.
  std::map<std::string, unsigned> Seen;
  std::optional<YAML::Node> BaseNode;
  // Nodes are copied out of the iterator: its -> yields a temporary proxy.
  for (const auto &KV : Doc) {
    YAML::Node KeyNode = KV.first;
    unsigned Line = KeyNode.Mark().line + 1;
    if (!KeyNode.IsScalar())
      return makeError(
          fmt::format("{}:{}: expected a key name, got {}", File, Line, describeNode(KeyNode)));
    std::string Key = KeyNode.Scalar();
    if (Key != BaseKey && !findKey(Key)) {
      std::string Hint = suggestKey(Key);
      return makeError(fmt::format("{}:{}: unknown key '{}' in hardware config{}", File, Line, Key,
                                   Hint.empty() ? "" : " (did you mean '" + Hint + "'?)"));
    }
    auto [Prev, Inserted] = Seen.emplace(Key, Line);
    if (!Inserted)
      return makeError(fmt::format("{}:{}: duplicate key '{}' (first set on line {})", File, Line,
                                   Key, Prev->second));
    if (Key == BaseKey)
      BaseNode = KV.second;
  }

  Parsed P;
  if (BaseNode) {
    auto Base = parseBase(*BaseNode, File, Depth);
    if (!Base)
      return Base.takeError();
    P = std::move(*Base);
  }
  // Second pass: apply this file's values over the base (or the defaults).
  for (const auto &KV : Doc) {
    YAML::Node KeyNode = KV.first, Value = KV.second;
    std::string Key = KeyNode.Scalar();
    if (Key == BaseKey)
      continue;
    unsigned Line = KeyNode.Mark().line + 1;
    if (llvm::Error E = setKey(P.C, *findKey(Key), Value, File, Line))
      return E;
    P.KeyLines[Key] = Line;
  }
  return P;
}

llvm::Expected<Parsed> parseImpl(const std::string &Text, const std::string &File, unsigned Depth) {
  try {
    snow::YamlDocument D = snow::loadOneDocument(Text);
    if (std::string Err = snow::extraDocumentError(D, File); !Err.empty())
      return makeError(Err);
    if (!D.Root.IsDefined() || D.Root.IsNull())
      return makeError(
          fmt::format("{}:1: expected a map of 'key: value' lines, got an empty document", File));
    return parseDocument(D.Root, File, Depth);
  } catch (const YAML::Exception &E) {
    // ParserException and friends: mark is 0-based, columns included.
    return makeError(fmt::format("{}:{}:{}: {}", File, E.mark.line + 1, E.mark.column + 1, E.msg));
  }
}

struct OnchipParts {
  uint64_t Maps, Weights, Acc, Queues, Imem;
};

/// On-chip bytes by kind, in 64 bits so that no accepted value can overflow.
/// Accumulator bits are rounded up to whole bytes.
OnchipParts onchipParts(const HwConfig &C) {
  uint64_t Cus = uint64_t(C.Clusters) * C.CusPerCluster, Vmacs = Cus * C.VmacsPerCu;
  uint64_t AccBits = Vmacs * C.LanesPerVmac * C.AccEntries * C.AccBits;
  // Three unit queues of instructions (load, compute, store).
  uint64_t Queues = 3 * uint64_t(C.QueueDepth) * InstBytes;
  return {Cus * C.MapsBufferKib * 1024, Vmacs * C.WeightsBufferKib * 1024, (AccBits + 7) / 8,
          Queues, uint64_t(C.ImemKib) * 1024};
}

bool isPow2(uint64_t V) { return V && !(V & (V - 1)); }

std::string rangeText(const KeyInfo &K) {
  if (std::holds_alternative<std::string HwConfig::*>(K.M))
    return "";
  if (std::holds_alternative<double HwConfig::*>(K.M))
    return "> 0";
  std::string R = K.Max == NoMax ? fmt::format("≥ {}", K.Min) : fmt::format("{}..{}", K.Min, K.Max);
  return K.Pow2 ? "power of two " + std::string(K.Max == NoMax ? "" : "in ") + R : R;
}

/// rangeText as the end of "must be ...".
std::string rangePhrase(const KeyInfo &K) {
  std::string R = rangeText(K);
  if (K.Pow2)
    return "a " + R;
  return K.Max == NoMax ? R : "in " + R;
}

bool validName(llvm::StringRef N) {
  // The name is printed unquoted by toYaml; these characters survive that.
  if (N.empty() || !llvm::isAlnum(N.front()) || N == "null" || N == "Null" || N == "NULL")
    return false;
  return llvm::all_of(
      N, [](char Ch) { return llvm::isAlnum(Ch) || Ch == '_' || Ch == '.' || Ch == '-'; });
}

using WhereFn = std::function<std::string(const char *Key)>;

/// All range errors at once, in one message (tools print errors on one line);
/// cross-key rules only once ranges hold, so that a zero lane count cannot
/// turn into a division by zero below.
llvm::Error validateImpl(const HwConfig &C, const WhereFn &Where) {
  std::vector<std::string> Msgs;
  auto Fail = [&](const char *Key, const std::string &Msg) {
    Msgs.push_back(fmt::format("{}: key '{}': {}", Where(Key), Key, Msg));
  };
  auto Errs = [&]() -> llvm::Error {
    if (Msgs.empty())
      return llvm::Error::success();
    return makeError(llvm::join(Msgs, "; "));
  };
  for (const KeyInfo &K : HwKeys) {
    if (auto *M = std::get_if<std::string HwConfig::*>(&K.M)) {
      if (!validName(C.**M))
        Fail(K.Key, fmt::format("must be {}, got '{}'", K.Rule, C.**M));
    } else if (auto *M = std::get_if<unsigned HwConfig::*>(&K.M)) {
      unsigned V = C.**M;
      if (V < K.Min || V > K.Max || (K.Pow2 && !isPow2(V)))
        Fail(K.Key, fmt::format("must be {}, got '{}'", rangePhrase(K), V));
    } else {
      double V = C.*std::get<double HwConfig::*>(K.M);
      if (!(V > 0) || !std::isfinite(V))
        Fail(K.Key, fmt::format("must be a number > 0, got '{}'", V));
    }
  }
  if (!Msgs.empty())
    return Errs();

  uint64_t Cus = uint64_t(C.Clusters) * C.CusPerCluster;
  if (Cus > MaxCus)
    Fail(keyOf(&HwConfig::CusPerCluster),
         fmt::format("clusters × cus_per_cluster must be at most {} (CU masks are {} bits), got "
                     "'{} × {} = {}'",
                     MaxCus, MaxCus, C.Clusters, C.CusPerCluster, Cus));
  uint64_t MapsElems = uint64_t(C.MapsBufferKib) * 1024 / 2;
  if (MapsElems % C.MapsBanks)
    Fail(keyOf(&HwConfig::MapsBanks),
         fmt::format("'{}' banks do not divide the {} int16 elements of a {} KiB maps buffer",
                     C.MapsBanks, MapsElems, C.MapsBufferKib));
  uint64_t Words = uint64_t(C.WeightsBufferKib) * 1024 / C.weightWordBytes();
  if (Words % C.WeightsBanks || Words < C.WeightsBanks)
    Fail(keyOf(&HwConfig::WeightsBanks),
         fmt::format("'{}' banks do not divide the {} words ({} bytes each) of a {} KiB weights "
                     "buffer",
                     C.WeightsBanks, Words, C.weightWordBytes(), C.WeightsBufferKib));
  if (C.DramEfficiency > 1)
    Fail(keyOf(&HwConfig::DramEfficiency),
         fmt::format("must be at most 1 (a controller cannot move more than its pin rate), got "
                     "'{}'",
                     C.DramEfficiency));
  double BwQ8 = std::round(C.DramGbps * C.DramEfficiency * 1e9 / (C.ClockMhz * 1e6) * 256.0);
  if (BwQ8 < 1 || BwQ8 > double(std::numeric_limits<uint32_t>::max()))
    Fail(keyOf(&HwConfig::DramGbps),
         fmt::format("'{}' GB/s × '{}' at '{}' MHz rounds to {}/256 bytes per cycle; it must be "
                     "1/256..{}/256",
                     C.DramGbps, C.DramEfficiency, C.ClockMhz, BwQ8,
                     std::numeric_limits<uint32_t>::max()));
  if (C.PoolWords > C.WritebackWords)
    Fail(keyOf(&HwConfig::PoolWords),
         fmt::format("must be at most writeback_words ('{}'): a pool result goes through the "
                     "writeback's port; got '{}'",
                     C.WritebackWords, C.PoolWords));
  const uint64_t BlockBytes = uint64_t(C.FetchBlockInsts) * InstBytes;
  if (BlockBytes % C.DramBurstBytes)
    Fail(keyOf(&HwConfig::FetchBlockInsts),
         fmt::format("a block of '{}' instructions is {} bytes, not a multiple of the {}-byte DRAM "
                     "burst",
                     C.FetchBlockInsts, BlockBytes, C.DramBurstBytes));
  else if (C.ImemKib) {
    // Direct-mapped by the block number's low bits: a power of two of lines,
    // and at least two so that prefetch can run ahead of the current block.
    const uint64_t Bytes = uint64_t(C.ImemKib) * 1024, Lines = Bytes / BlockBytes;
    if (Bytes % BlockBytes || Lines < 2 || !isPow2(Lines))
      Fail(keyOf(&HwConfig::ImemKib),
           fmt::format("'{}' KiB holds {} blocks of {} bytes; it must hold a power of two, at "
                       "least 2, exactly",
                       C.ImemKib, double(Bytes) / double(BlockBytes), BlockBytes));
  }
  if (!Msgs.empty())
    return Errs();

  OnchipParts Parts = onchipParts(C);
  uint64_t Onchip = C.onchipBytes(), Budget = uint64_t(C.OnchipBudgetKib) * 1024;
  if (Onchip > Budget)
    Fail(keyOf(&HwConfig::OnchipBudgetKib),
         fmt::format("buffers and accumulators need {} bytes (maps {} + weights {} + "
                     "accumulators {} + queues {} + instruction memory {}), over the budget of "
                     "'{}' KiB ({} bytes)",
                     Onchip, Parts.Maps, Parts.Weights, Parts.Acc, Parts.Queues, Parts.Imem,
                     C.OnchipBudgetKib, Budget));
  return Errs();
}

llvm::Expected<HwConfig> loadText(const std::string &Text, const std::string &File) {
  auto P = parseImpl(Text, File, 0);
  if (!P)
    return P.takeError();
  WhereFn Where = [&](const char *Key) {
    auto It = P->KeyLines.find(Key);
    return It == P->KeyLines.end() ? File : fmt::format("{}:{}", File, It->second);
  };
  if (llvm::Error E = validateImpl(P->C, Where))
    return E;
  return P->C;
}

} // namespace

uint64_t HwConfig::onchipBytes() const {
  OnchipParts P = onchipParts(*this);
  return P.Maps + P.Weights + P.Acc + P.Queues + P.Imem;
}

std::string HwConfig::toYaml() const {
  std::string S;
  for (const KeyInfo &K : HwKeys)
    S += fmt::format("{}: {}\n", K.Key, formatValue(*this, K));
  return S;
}

std::vector<std::string> snow::isa::hwPresetNames() {
  std::vector<std::string> Names;
  for (const Preset &P : Presets)
    Names.push_back(P.Name);
  std::sort(Names.begin(), Names.end());
  return Names;
}

llvm::Expected<HwConfig> snow::isa::parseHwConfig(const std::string &Text,
                                                  const std::string &File) {
  auto P = parseImpl(Text, File, 0);
  if (!P)
    return P.takeError();
  return P->C;
}

llvm::Error snow::isa::validate(const HwConfig &C, const std::string &Where) {
  return validateImpl(C, [&](const char *) { return Where; });
}

llvm::Expected<HwConfig> snow::isa::loadHwConfig(const std::string &PresetOrFile) {
  if (const Preset *P = findPreset(PresetOrFile))
    return loadText(P->Text, presetFile(*P));
  if (!llvm::sys::fs::exists(PresetOrFile))
    return makeError(fmt::format("unknown hardware preset or file '{}' (presets: {})", PresetOrFile,
                                 presetList()));
  if (llvm::sys::fs::is_directory(PresetOrFile))
    return makeError(
        fmt::format("cannot read hardware config '{}': it is a directory", PresetOrFile));
  auto Buf = snow::readInputFile(PresetOrFile, /*IsText=*/true);
  if (!Buf)
    return makeError(fmt::format("cannot read hardware config '{}': {}", PresetOrFile,
                                 Buf.getError().message()));
  return loadText((*Buf)->getBuffer().str(), PresetOrFile);
}

std::string snow::isa::hwConfigKeyTable() {
  const Preset *Zc = findPreset("zc706");
  assert(Zc && "the zc706 preset is the documented reference point");
  auto Ref = parseImpl(Zc->Text, presetFile(*Zc), 0);
  HwConfig C = Ref ? Ref->C : HwConfig();
  if (!Ref)
    llvm::consumeError(Ref.takeError());
  std::string S = "| key | unit | zc706 | allowed | meaning |\n|---|---|---|---|---|\n";
  for (const KeyInfo &K : HwKeys) {
    std::string Allowed = rangeText(K);
    if (*K.Rule)
      Allowed += (Allowed.empty() ? "" : "; ") + std::string(K.Rule);
    S += fmt::format("| `{}` | {} | {} | {} | {} |\n", K.Key, K.Unit, formatValue(C, K), Allowed,
                     K.Doc);
  }
  return S;
}
