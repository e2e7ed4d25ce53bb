//===- SweepSpec.h - What a design-space sweep covers ---------------*- C++ -*-===//
//
// A sweep is the cartesian product of value lists for hardware keys
// (`--set clusters=1,2 --set dram_gbps=4.2,12.8`) applied over a base
// configuration, crossed with a list of models. This header parses the
// command-line pieces, enumerates the points in a fixed order and splits the
// (model, point) tasks into shards, so that independent processes (a cluster's
// job array) cover the same product without talking to each other.
//
// Everything here is pure: no files, no threads. User mistakes (an unknown
// key, a value of the wrong type, a malformed shard) are errors that name the
// argument; a value that parses but describes impossible hardware is not an
// error here: that point is reported as invalid in the results.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_EXPLORE_SWEEPSPEC_H
#define SNOW_EXPLORE_SWEEPSPEC_H

#include "snow/isa/HwConfig.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace snow::explore {

/// One `--set KEY=V1,V2,...` argument. Values are kept as written, so the
/// point label and the YAML say exactly what the user typed.
struct SetArg {
  std::string Key;
  std::vector<std::string> Values;
};

/// Parses "KEY=V1,V2,...". Checks syntax only (a key, '=', non-empty values,
/// no value twice); whether the key exists is checkSetArgs' job.
llvm::Expected<SetArg> parseSetArg(llvm::StringRef Text);

/// Checks every key and value against the hardware parser, and that no key is
/// set twice: an unknown key or a value of the wrong type is a user error,
/// reported once up front instead of as a failure on every point.
llvm::Error checkSetArgs(const std::vector<SetArg> &Sets);

/// `--shard I/N`: this process runs task T (0-based) iff T % N == I - 1.
struct Shard {
  unsigned Index = 1, Count = 1; ///< 1-based, like Slurm's array indices.
  bool owns(uint64_t Task) const { return Task % Count == Index - 1; }
  std::string str() const;
};

/// Parses "I/N" with 1 <= I <= N.
llvm::Expected<Shard> parseShard(llvm::StringRef Text);

/// One hardware point of the product: the swept keys with their values, in
/// --set order.
struct SweepPoint {
  unsigned Index = 0; ///< Position in the product (0-based).
  std::vector<std::pair<std::string, std::string>> Values;
  /// "clusters=2;dram_gbps=12.8" (or "base" when nothing is swept).
  std::string label() const;
};

/// The cartesian product in odometer order: the last --set varies fastest.
/// No --set at all gives one point, the base itself.
std::vector<SweepPoint> cartesianProduct(const std::vector<SetArg> &Sets);

/// The hardware of one point: Base with the point's keys replaced, as the
/// canonical YAML text the hardware parser reads, named after the base.
std::string pointYaml(const isa::HwConfig &Base, const SweepPoint &P);

/// Parses and validates a point's hardware. An error here means the point is
/// impossible hardware (the message is one line, naming key and value).
llvm::Expected<isa::HwConfig> pointConfig(const isa::HwConfig &Base, const SweepPoint &P);

} // namespace snow::explore

#endif
