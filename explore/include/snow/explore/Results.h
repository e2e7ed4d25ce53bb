//===- Results.h - Sweep results: rows, CSV and JSON, merging ------*- C++ -*-===//
//
// One row per (model, hardware point). The CSV is the source of truth: each
// run appends rows to its own part file (DIR/parts/shard-I-of-N.csv) one
// line at a time, so an interrupted run loses at most the points in flight,
// and a re-run skips every (model, hardware) pair any part already holds.
// DIR/results.csv and DIR/results.json are the merged, sorted view of all
// parts, rewritten atomically; two shards of one sweep merge into exactly
// what a single run writes.
//
// A point is identified by the hash of its model file and the hash of its
// canonical hardware text, not by its position in a product: re-running with
// a longer --set list reuses the points already done.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_EXPLORE_RESULTS_H
#define SNOW_EXPLORE_RESULTS_H

#include "snow/isa/HwConfig.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace snow::explore {

/// What happened to a point. Everything but Ok still gets a row, so that a
/// sweep's output accounts for every point it was asked for.
enum class PointStatus {
  Ok,
  InvalidHw,     ///< The hardware itself is impossible (validate() refused it).
  CompileFailed, ///< The compiler refused the model on it (e.g. a buffer too small for a layer).
  SimFailed,     ///< The simulator faulted: a compiler or simulator bug, worth a report.
};
const char *statusName(PointStatus S);

struct ResultRow {
  std::string Model;  ///< The model's name (from its YAML).
  unsigned Point = 0; ///< Index in the product of the run that made the row.
  std::string Config; ///< SweepPoint::label().
  PointStatus Status = PointStatus::Ok;
  std::string Message; ///< Why a point is not Ok (one line); empty when Ok.
  uint64_t Macs = 0;   ///< MACs per frame (the model's).
  uint64_t Cycles = 0;
  uint64_t DramBytes = 0; ///< Payload bytes read + written per frame.
  /// Joules per frame with the hardware's energy table (docs/energy.md); 0
  /// when the hardware has none.
  double EnergyJ = 0;
  /// The hardware of the point: every key of the hardware YAML (canonical
  /// values), so a row is self-describing whatever was swept.
  std::map<std::string, std::string> Hw;
  // Derived from the hardware alone; valid whenever the hardware is.
  unsigned ArrayMacs = 0;
  double PeakGops = 0, OnchipKib = 0;
  std::string HwHash, ModelHash; ///< Identity for resuming (16 hex digits each).

  // Derived from cycles, MACs and the clock (1 MAC = 2 ops); 0 unless Ok.
  double utilization() const;
  double gops() const;
  double fps() const;
  double dramMbPerFrame() const;
  double dramGbpsUsed() const;
  double opsPerByte() const;
  double watts() const;    ///< Energy per frame × frames per second; 0 without energy.
  double gopsPerW() const; ///< G-ops/s ÷ watts = 2 × MACs ÷ 1e9 ÷ joules per frame.

  /// The key a re-run looks up: model name, model hash and hardware hash.
  std::string key() const { return Model + "|" + ModelHash + "|" + HwHash; }
};

/// Fills the hardware columns (Hw, ArrayMacs, PeakGops, OnchipKib, HwHash)
/// from a parsed configuration. The hash ignores the configuration's name.
void setHardware(ResultRow &R, const isa::HwConfig &C);
/// Fills only Hw and HwHash from canonical text, for points whose hardware
/// does not validate (the derived sizes would be meaningless).
void setInvalidHardware(ResultRow &R, const std::string &CanonicalYaml);

/// A 16-hex-digit content hash (for model files and hardware text).
std::string contentHash(const std::string &Bytes);

/// The CSV columns, in order: model, point, config, status, message, macs,
/// array_macs, peak_gops, cycles, utilization, gops, fps, dram_mb,
/// ops_per_byte, dram_gbps_used, onchip_kib, then every hardware key (in the
/// hardware table's order, without name), then dram_bytes, hw_hash, model_hash.
std::vector<std::string> csvColumns();
/// The header line and one row, each newline-terminated (RFC 4180 quoting).
std::string csvHeader();
std::string csvLine(const ResultRow &R);

/// Parses a CSV produced by csvHeader/csvLine (any column order; unknown
/// columns ignored). A truncated last line (an interrupted append) is
/// dropped, not an error; a malformed line elsewhere is an error naming the
/// file and line.
llvm::Expected<std::vector<ResultRow>> parseCsv(const std::string &Text, const std::string &File);

/// All rows as JSON: {"columns": [...], "rows": [{column: value, ...}]},
/// numbers as numbers.
std::string toJson(const std::vector<ResultRow> &Rows);

/// Rows sorted by (model, point, hardware hash) with duplicates of a key
/// removed (the first kept), so merge order never shows in the output.
std::vector<ResultRow> sortedUnique(std::vector<ResultRow> Rows);

/// The parts of an output directory.
std::string partsDir(const std::string &OutDir);
std::string partFile(const std::string &OutDir, unsigned ShardIndex, unsigned ShardCount);

/// Every row of every part file under OutDir (none if the directory is new).
llvm::Expected<std::vector<ResultRow>> readParts(const std::string &OutDir);

/// Rewrites OutDir/results.csv and OutDir/results.json from all parts, under
/// an exclusive lock on OutDir/.merge.lock so that shards finishing together
/// cannot interleave their merges. Returns the number of rows written.
llvm::Expected<size_t> mergeParts(const std::string &OutDir);

} // namespace snow::explore

#endif
