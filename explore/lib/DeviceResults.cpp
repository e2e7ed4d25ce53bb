//===- DeviceResults.cpp - Utilization of the reference devices -----------===//
//
// One formula for every device (Devices.h), so that the numbers in a
// comparison table differ because the devices differ, not because each source
// counted operations its own way. Whatever the formula had to assume is
// written into the result's flags, which the report prints beside the figure.
//
//===----------------------------------------------------------------------===//

#include "snow/explore/Devices.h"
#include "snow/ir/Graph.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <fmt/format.h>

using namespace snow;
using namespace snow::explore;

llvm::Expected<WorkloadOps> snow::explore::workloadOps(const std::string &ModelPath) {
  auto G = ir::loadModel(ModelPath);
  if (!G)
    return G.takeError();
  WorkloadOps W;
  W.Name = G->Name;
  // Channel copies (a YAML shuffle or slice) are neither the network's work
  // nor its weights: a GPU moves those channels without multiplying.
  W.Macs = G->usefulMacs();
  W.Params = G->usefulParams();
  for (const ir::Layer &L : G->Layers)
    if (L.Kind == ir::LayerKind::Conv && !L.isChannelCopy()) {
      W.ConvMacs += L.macs();
      W.ConvParams += L.params();
    }
  W.InputElems = G->Input.elems();
  W.OutputElems = G->output().Out.elems();
  W.InputH = G->Input.H;
  W.InputW = G->Input.W;
  return W;
}

unsigned snow::explore::precisionBytes(const std::string &P) {
  if (P == "int8")
    return 1;
  if (P == "fp16" || P == "bf16" || P == "int16")
    return 2;
  if (P == "fp32")
    return 4;
  return 0;
}

DeviceResult snow::explore::computeDeviceResult(const Device &D, const Measurement &M,
                                                const std::optional<WorkloadOps> &Ops) {
  DeviceResult R;
  R.Device = D.Id;
  R.DeviceName = D.Name;
  R.Kind = D.Kind;
  R.Precision = D.Precision;
  R.Workload = M.Workload;
  R.Variant = M.Variant;
  R.Note = M.Note;
  R.Batch = M.Batch;
  R.PeakGops = D.PeakGops.Value;
  auto Use = [&](const Figure &F) {
    if (std::find(R.Sources.begin(), R.Sources.end(), F.Source) == R.Sources.end())
      R.Sources.push_back(F.Source);
  };
  Use(D.PeakGops);
  if (!D.PeakGops.Derived.empty())
    R.Flags.push_back("peak derived: " + D.PeakGops.Derived);

  if (M.Fps) {
    R.Fps = M.Fps->Value;
    Use(*M.Fps);
    if (!M.Fps->Derived.empty())
      R.Flags.push_back("fps derived: " + M.Fps->Derived);
  } else if (M.MsPerBatch) {
    R.Fps = std::max(1u, M.Batch) * 1000.0 / M.MsPerBatch->Value;
    Use(*M.MsPerBatch);
    R.Flags.push_back(
        fmt::format("fps derived: batch {} / {} ms", std::max(1u, M.Batch), M.MsPerBatch->Value));
  }

  // Ops per image: the source's own count where it states one (its network
  // is what ran), else the project model's. Never the one rate with the
  // other's count: the Snowflake paper's ResNet-50 does 6.879 G-ops, ours
  // 8.2, and its fps times ours would claim 113 % of its peak.
  double Scale = 1;
  R.Scope = M.ConvOnly ? "conv layers" : "whole network";
  if (M.SourceOpsPerImage) {
    Use(*M.SourceOpsPerImage);
    R.OpsCountedBy = "source";
    R.OpsPerImage = M.SourceOpsPerImage->Value * 1e9;
    R.Flags.push_back(
        fmt::format("ops: the source's own count, {} G-ops per image", M.SourceOpsPerImage->Value));
  } else if (Ops) {
    R.OpsCountedBy = "project model";
    R.OpsPerImage = 2.0 * double(M.ConvOnly ? Ops->ConvMacs : Ops->Macs);
    if (M.ConvOnly)
      R.Flags.push_back("ops: convolution layers only, as the source counts");
    if (M.Input && (M.Input != Ops->InputH || M.Input != Ops->InputW)) {
      Scale = double(M.Input) * M.Input / (double(Ops->InputH) * Ops->InputW);
      R.OpsPerImage *= Scale;
      R.Flags.push_back(fmt::format("ops scaled by input area: source ran {}x{}, model is {}x{}",
                                    M.Input, M.Input, Ops->InputH, Ops->InputW));
    }
  }
  if (R.Fps > 0 && R.OpsPerImage > 0) {
    R.Gops = R.Fps * R.OpsPerImage / 1e9;
  } else if (M.Gops) {
    R.Gops = M.Gops->Value;
    R.OpsCountedBy = "source";
    Use(*M.Gops);
    R.Flags.push_back("achieved ops/s as published (no image rate)");
  }
  R.Utilization = R.Gops / R.PeakGops;
  if (R.Utilization > 1) {
    R.Comparable = false;
    R.Flags.push_back(fmt::format(
        "no utilization claimed: counted with {} ops it would be {:.1f} % of peak, so the "
        "source's network or algorithm (e.g. Winograd convolution) does fewer multiplies per "
        "image than counted",
        R.OpsCountedBy == "source" ? "the source's" : "the project model's", 100 * R.Utilization));
  }

  const Figure *Power = M.PowerW ? &*M.PowerW : D.PowerW ? &*D.PowerW : nullptr;
  if (Power && Power->Value > 0) {
    R.PowerW = Power->Value;
    Use(*Power);
    R.GopsPerW = R.Gops / R.PowerW;
    R.Flags.push_back(M.PowerW
                          ? "power: measured in this run"
                          : "power: device rating (" +
                                (Power->Note.empty() ? std::string("TDP or board") : Power->Note) +
                                "), not measured in this run");
  }

  unsigned Bytes = precisionBytes(D.Precision);
  if (Ops && Bytes && R.OpsPerImage > 0) {
    // Traffic is the project model's (weights, tensors): the source states
    // no byte counts.
    double Weights = double(M.ConvOnly ? Ops->ConvParams : Ops->Params) * Bytes;
    double Io = double(Ops->InputElems + Ops->OutputElems) * Scale * Bytes;
    if (M.Batch) {
      R.OpsPerByte = R.OpsPerImage * M.Batch / (Weights + M.Batch * Io);
    } else {
      R.OpsPerByte = R.OpsPerImage / Io;
      R.Flags.push_back("batch not stated: weight traffic left out of ops/byte");
    }
  }
  return R;
}

llvm::Expected<std::vector<DeviceResult>>
snow::explore::computeDeviceResults(const DeviceTable &T) {
  std::map<std::string, std::optional<WorkloadOps>> Ops;
  std::vector<DeviceResult> Out;
  for (const Device &D : T.Devices)
    for (const Measurement &M : D.Measured) {
      const Workload &W = T.Workloads.at(M.Workload);
      if (!Ops.count(M.Workload)) {
        Ops[M.Workload] = std::nullopt;
        if (!W.Model.empty()) {
          auto O = workloadOps(W.Model);
          if (!O)
            return O.takeError();
          Ops[M.Workload] = *O;
        }
      }
      DeviceResult R = computeDeviceResult(D, M, Ops[M.Workload]);
      if (Ops[M.Workload]) {
        R.Model = Ops[M.Workload]->Name;
        R.ModelMacs = Ops[M.Workload]->Macs;
      }
      Out.push_back(std::move(R));
    }
  return Out;
}

std::string snow::explore::deviceResultsJson(const DeviceTable &T,
                                             const std::vector<DeviceResult> &Results) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  llvm::json::OStream J(OS, 1);
  auto Fig = [&](const char *Key, const std::optional<Figure> &F) {
    if (!F)
      return;
    J.attributeObject(Key, [&] {
      J.attribute("value", F->Value);
      J.attribute("source", F->Source);
      if (!F->Derived.empty())
        J.attribute("derived", F->Derived);
      if (!F->Note.empty())
        J.attribute("note", F->Note);
      if (!F->Also.empty())
        J.attributeArray("also", [&] {
          for (const Figure &A : F->Also)
            J.object([&] {
              J.attribute("value", A.Value);
              J.attribute("source", A.Source);
              if (!A.Derived.empty())
                J.attribute("derived", A.Derived);
              if (!A.Note.empty())
                J.attribute("note", A.Note);
            });
        });
    });
  };
  J.object([&] {
    J.attributeObject("sources", [&] {
      for (const auto &[Id, S] : T.Sources)
        J.attributeObject(Id, [&] {
          J.attribute("cite", S.Cite);
          J.attribute("url", S.Url);
          J.attribute("checked", S.Checked);
        });
    });
    J.attributeArray("devices", [&] {
      for (const Device &D : T.Devices)
        J.object([&] {
          J.attribute("id", D.Id);
          J.attribute("name", D.Name);
          J.attribute("kind", D.Kind);
          J.attribute("precision", D.Precision);
          Fig("peak_gops", D.PeakGops);
          Fig("mem_gbps", D.MemGbps);
          Fig("power_w", D.PowerW);
          Fig("price_usd", D.PriceUsd);
          Fig("macs", D.Macs);
          Fig("clock_mhz", D.ClockMhz);
          J.attribute("note", D.Note);
        });
    });
    J.attributeArray("results", [&] {
      for (const DeviceResult &R : Results)
        J.object([&] {
          J.attribute("device", R.Device);
          J.attribute("device_name", R.DeviceName);
          J.attribute("kind", R.Kind);
          J.attribute("precision", R.Precision);
          J.attribute("workload", R.Workload);
          J.attribute("model", R.Model);
          J.attribute("model_macs", int64_t(R.ModelMacs));
          J.attribute("variant", R.Variant);
          J.attribute("note", R.Note);
          J.attribute("batch", int64_t(R.Batch));
          J.attribute("peak_gops", R.PeakGops);
          J.attribute("fps", R.Fps);
          J.attribute("ops_per_image", R.OpsPerImage);
          J.attribute("gops", R.Gops);
          J.attribute("ops_counted_by", R.OpsCountedBy);
          J.attribute("scope", R.Scope);
          J.attribute("comparable", R.Comparable);
          // No utilization above 100 % is claimed (see Comparable).
          if (R.Comparable)
            J.attribute("utilization", R.Utilization);
          else
            J.attribute("utilization", nullptr);
          J.attribute("power_w", R.PowerW);
          J.attribute("gops_per_w", R.GopsPerW);
          J.attribute("ops_per_byte", R.OpsPerByte);
          J.attributeArray("flags", [&] {
            for (const std::string &F : R.Flags)
              J.value(F);
          });
          J.attributeArray("sources", [&] {
            for (const std::string &S : R.Sources)
              J.value(S);
          });
        });
    });
  });
  OS.flush();
  return Text + "\n";
}
