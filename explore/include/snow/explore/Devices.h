//===- Devices.h - Published reference devices and their utilization -*- C++ -*-===//
//
// The reference table (docs/devices.yaml) lists published devices — TPUs,
// GPUs, FPGAs, ASICs, Snowflake itself — with peak ops/s, precision, memory
// bandwidth, power and price where known, and measured throughput per
// workload with batch size. Every figure carries the id of its source, and
// figures computed from others are marked with how (`derived:`); the loader
// refuses a figure without a source, an unknown source id, or an unknown key.
//
// What the table does not store is utilization: that is computed here, the
// same way for every device, from the project's own models:
//
//   utilization = images/s × ops/image ÷ peak ops/s,   ops/image = 2 × MACs
//
// with MACs from models/X.yaml (conv layers only when the source counts only
// those). When the source ran another variant of the network, the computed
// figure says so rather than silently adopting the source's own op count.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_EXPLORE_DEVICES_H
#define SNOW_EXPLORE_DEVICES_H

#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace snow::explore {

/// A published number with its provenance.
struct Figure {
  double Value = 0;
  std::string Source;  ///< Id into DeviceTable::Sources.
  std::string Derived; ///< How it was computed from published numbers; empty if printed as is.
  std::string Note;
  /// Other published values of the same quantity (a seed article's figure
  /// beside the vendor's), shown with their sources; Value is the one the
  /// computations use, and its note says why.
  std::vector<Figure> Also;
};

struct Source {
  std::string Cite, Url;
  std::string Checked; ///< What was verified against the source text, and how.
};

/// A workload the measurements refer to: one of the project's models.
struct Workload {
  std::string Model; ///< Path to the model YAML (absolute after loading), or empty.
  std::string Note;
};

struct Measurement {
  std::string Workload; ///< Id into DeviceTable::Workloads.
  std::string Variant;  ///< What the source actually ran, if not exactly the model.
  unsigned Batch = 0;   ///< 0: not stated by the source (e.g. MLPerf offline).
  // Exactly one of these three is given.
  std::optional<Figure> Fps;               ///< Images per second.
  std::optional<Figure> MsPerBatch;        ///< Time for one batch: fps = batch × 1000 / ms.
  std::optional<Figure> Gops;              ///< Achieved G-ops/s as published (no image rate).
  std::optional<Figure> PowerW;            ///< Power measured in this run, if published.
  std::optional<Figure> SourceOpsPerImage; ///< G-ops per image as the source counts them.
  unsigned Input = 0;    ///< Square input side the source used, if not the model's.
  bool ConvOnly = false; ///< The source counts convolution layers only.
  std::string Note;
};

struct Device {
  std::string Id, Name, Kind, Precision;
  Figure PeakGops;
  std::optional<Figure> MemGbps, PowerW, PriceUsd, Macs, ClockMhz;
  std::string Note;
  std::vector<Measurement> Measured;
};

struct DeviceTable {
  std::map<std::string, Source> Sources;
  std::map<std::string, Workload> Workloads;
  std::vector<Device> Devices;
};

/// Loads and checks a device table. Model paths are resolved relative to
/// the table's directory. Errors carry file:line.
llvm::Expected<DeviceTable> loadDeviceTable(const std::string &Path);
llvm::Expected<DeviceTable> parseDeviceTable(const std::string &Text, const std::string &File);

/// What a project model costs per image, from its graph as written.
struct WorkloadOps {
  std::string Name;                ///< The model's name, as sweep results call it.
  uint64_t Macs = 0, ConvMacs = 0; ///< All layers; convolution layers only.
  uint64_t Params = 0, ConvParams = 0;
  uint64_t InputElems = 0, OutputElems = 0;
  unsigned InputH = 0, InputW = 0;
};

/// Loads the model (ir::loadModel) and counts.
llvm::Expected<WorkloadOps> workloadOps(const std::string &ModelPath);

/// Bytes per value of a precision name ("int8" 1, "fp16"/"bf16"/"int16" 2,
/// "fp32" 4); 0 for a name it does not know.
unsigned precisionBytes(const std::string &Precision);

/// The computed figures of one measurement, each labelled by Flags.
struct DeviceResult {
  std::string Device, DeviceName, Kind, Precision, Workload, Variant, Note;
  std::string Model;      ///< The workload model's name (matches sweep rows); empty if none.
  uint64_t ModelMacs = 0; ///< MACs per image of that model (all layers, as written).
  unsigned Batch = 0;     ///< 0: not stated.
  double PeakGops = 0;
  double Fps = 0;         ///< 0 when the source gives only ops/s.
  double OpsPerImage = 0; ///< As counted by OpsCountedBy (scaled if Input differs).
  /// Whose operation count OpsPerImage, Gops and Utilization use: "source"
  /// where the source states its own op count per image (the Snowflake paper,
  /// the Vitis AI zoo), else "project model". A source's rate is never
  /// multiplied by the other's count.
  std::string OpsCountedBy;
  /// "whole network" or "conv layers" (what the ops per image count).
  std::string Scope;
  double Gops = 0;        ///< Achieved: fps × ops/image, or the published ops/s.
  double Utilization = 0; ///< Gops ÷ peak.
  /// False when Utilization would exceed 100 %: the source ran a network or
  /// algorithm with fewer multiplies than counted (Winograd, a smaller
  /// variant), so no utilization is claimed (the flags say why).
  bool Comparable = true;
  double PowerW = 0; ///< The run's power if published, else the device's.
  double GopsPerW = 0;
  double OpsPerByte = 0; ///< At compulsory DRAM traffic (see computeDeviceResult).
  /// Labels for every figure not printed by the source as is: "fps derived
  /// from ms per batch", "ops scaled to 299x299 input", "utilization > 100 %:
  /// the source's network is smaller than the model", ...
  std::vector<std::string> Flags;
  std::vector<std::string> Sources; ///< Ids of every source used.
};

/// Computes one measurement's figures. Ops is the workload model's counts
/// (ignored when the workload has no model and the measurement gives Gops).
/// OpsPerByte assumes compulsory traffic: weights once per batch, input and
/// output once per image, at the device's precision (weights left out when the
/// batch is not stated, i.e. taken as fully amortized).
DeviceResult computeDeviceResult(const Device &D, const Measurement &M,
                                 const std::optional<WorkloadOps> &Ops);

/// Every measurement of the table, models loaded once each.
llvm::Expected<std::vector<DeviceResult>> computeDeviceResults(const DeviceTable &T);

/// {"sources": {...}, "devices": [...], "results": [...]} for snowreport.
std::string deviceResultsJson(const DeviceTable &T, const std::vector<DeviceResult> &Results);

} // namespace snow::explore

#endif
