//===- Devices.cpp - Reading the reference device table -------------------===//
//
// Strict like every other YAML reader of the project: a misspelled key
// ("peak_gop") silently ignored would drop a figure from every comparison
// without anyone noticing. Inside the parser an error is thrown as
// TableError and turned into an llvm::Error at the entry points, so each
// check is one line.
//
//===----------------------------------------------------------------------===//

#include "snow/explore/Devices.h"
#include "snow/support/FileIO.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <cmath>
#include <fmt/format.h>
#include <set>
#include <yaml-cpp/yaml.h>

using namespace snow;
using namespace snow::explore;

namespace {

struct TableError {
  std::string Msg;
};

const char *const TopKeys[] = {"sources", "workloads", "devices"};
const char *const SourceKeys[] = {"cite", "url", "checked"};
const char *const WorkloadKeys[] = {"model", "note"};
const char *const DeviceKeys[] = {"id",        "name",      "kind",    "precision",
                                  "peak_gops", "mem_gbps",  "power_w", "price_usd",
                                  "macs",      "clock_mhz", "note",    "measured"};
const char *const MeasurementKeys[] = {
    "workload",     "variant", "batch",   "fps",
    "ms_per_batch", "gops",    "power_w", "source_gops_per_image",
    "input",        "layers",  "note"};
const char *const FigureKeys[] = {"value", "source", "derived", "note", "also"};
const char *const Kinds[] = {"asic", "gpu", "fpga", "soc", "estimate"};

class TableParser {
public:
  TableParser(std::string File) : File(std::move(File)) {}

  DeviceTable parse(const YAML::Node &Root) {
    if (!Root.IsMap())
      fail(Root, "expected a map with keys sources, workloads, devices");
    checkKeys(Root, TopKeys);
    YAML::Node Srcs = required(Root, Root, "sources");
    if (!Srcs.IsMap())
      fail(Srcs, "'sources' must map ids to sources");
    for (auto It = Srcs.begin(); It != Srcs.end(); ++It) {
      const YAML::Node Key = It->first, V = It->second;
      checkKeys(V, SourceKeys);
      Source S;
      S.Cite = text(required(V, Key, "cite"));
      S.Checked = text(required(V, Key, "checked"));
      if (V["url"])
        S.Url = text(V["url"]);
      T.Sources[Key.Scalar()] = S;
    }
    YAML::Node Wls = required(Root, Root, "workloads");
    for (auto It = Wls.begin(); It != Wls.end(); ++It) {
      const YAML::Node Key = It->first, V = It->second;
      checkKeys(V, WorkloadKeys);
      Workload W;
      if (V["model"])
        W.Model = resolve(text(V["model"]));
      if (V["note"])
        W.Note = text(V["note"]);
      T.Workloads[Key.Scalar()] = W;
    }
    YAML::Node Devs = required(Root, Root, "devices");
    if (!Devs.IsSequence())
      fail(Devs, "'devices' must be a list");
    std::set<std::string> Ids;
    for (const YAML::Node &D : Devs) {
      T.Devices.push_back(device(D));
      if (!Ids.insert(T.Devices.back().Id).second)
        fail(D["id"], fmt::format("device id '{}' is used twice", T.Devices.back().Id));
    }
    return std::move(T);
  }

private:
  [[noreturn]] void fail(const YAML::Node &At, const std::string &Msg) const {
    throw TableError{fmt::format("{}:{}: {}", File, At.Mark().line + 1, Msg)};
  }

  void checkKeys(const YAML::Node &Map, llvm::ArrayRef<const char *> Known) const {
    if (!Map.IsMap())
      fail(Map, "expected a map");
    std::set<std::string> Seen;
    for (auto It = Map.begin(); It != Map.end(); ++It) {
      const YAML::Node Key = It->first;
      std::string K = Key.Scalar();
      if (llvm::find_if(Known, [&](const char *C) { return K == C; }) == Known.end())
        fail(Key, fmt::format("unknown key '{}' (known keys: {})", K, fmt::join(Known, ", ")));
      if (!Seen.insert(K).second)
        fail(Key, fmt::format("key '{}' is given twice", K));
    }
  }

  YAML::Node required(const YAML::Node &Map, const YAML::Node &Owner, const char *Key) const {
    YAML::Node V = Map[Key];
    if (!V)
      fail(Owner, fmt::format("missing required key '{}'", Key));
    return V;
  }

  std::string text(const YAML::Node &N) const {
    if (!N.IsScalar())
      fail(N, "expected text");
    return N.Scalar();
  }

  double number(const YAML::Node &N) const {
    double V;
    if (!N.IsScalar() || !YAML::convert<double>::decode(N, V) || !std::isfinite(V) || V < 0)
      fail(N, fmt::format("expected a number >= 0, got '{}'", N.IsScalar() ? N.Scalar() : "?"));
    return V;
  }

  unsigned count(const YAML::Node &N) const {
    double V = number(N);
    if (V < 1 || V != std::floor(V) || V > 1e9)
      fail(N, fmt::format("expected a whole number >= 1, got '{}'", N.Scalar()));
    return unsigned(V);
  }

  Figure figure(const YAML::Node &N) const {
    if (!N.IsMap())
      fail(N, "a figure is a map: {value: V, source: ID[, derived: HOW][, note: TEXT]}");
    checkKeys(N, FigureKeys);
    Figure F;
    F.Value = number(required(N, N, "value"));
    YAML::Node Src = required(N, N, "source");
    F.Source = text(Src);
    if (!T.Sources.count(F.Source))
      fail(Src, fmt::format("unknown source '{}' (list it under 'sources')", F.Source));
    if (N["derived"])
      F.Derived = text(N["derived"]);
    if (N["note"])
      F.Note = text(N["note"]);
    if (YAML::Node Also = N["also"]) {
      if (!Also.IsSequence())
        fail(Also, "'also' is a list of figures: [{value: V, source: ID[, note: TEXT]}, ...]");
      for (const YAML::Node &A : Also) {
        if (A.IsMap() && A["also"])
          fail(A["also"], "an 'also' figure cannot have its own 'also'");
        F.Also.push_back(figure(A));
      }
    }
    return F;
  }

  std::optional<Figure> optFigure(const YAML::Node &Map, const char *Key) const {
    if (!Map[Key])
      return std::nullopt;
    return figure(Map[Key]);
  }

  std::string resolve(const std::string &P) const {
    if (llvm::sys::path::is_absolute(P))
      return P;
    llvm::SmallString<256> Full(llvm::sys::path::parent_path(File));
    llvm::sys::path::append(Full, P);
    return std::string(Full);
  }

  Device device(const YAML::Node &N) const {
    checkKeys(N, DeviceKeys);
    Device D;
    D.Id = text(required(N, N, "id"));
    D.Name = text(required(N, N, "name"));
    YAML::Node Kind = required(N, N, "kind");
    D.Kind = text(Kind);
    if (llvm::find(Kinds, D.Kind) == std::end(Kinds))
      fail(Kind, fmt::format("kind '{}' is not one of: {}", D.Kind, fmt::join(Kinds, ", ")));
    D.Precision = text(required(N, N, "precision"));
    D.PeakGops = figure(required(N, N, "peak_gops"));
    if (D.PeakGops.Value <= 0)
      fail(N["peak_gops"], "peak_gops must be > 0");
    D.MemGbps = optFigure(N, "mem_gbps");
    D.PowerW = optFigure(N, "power_w");
    D.PriceUsd = optFigure(N, "price_usd");
    D.Macs = optFigure(N, "macs");
    D.ClockMhz = optFigure(N, "clock_mhz");
    if (N["note"])
      D.Note = text(N["note"]);
    if (YAML::Node Ms = N["measured"]) {
      if (!Ms.IsSequence())
        fail(Ms, "'measured' must be a list");
      for (const YAML::Node &M : Ms)
        D.Measured.push_back(measurement(M));
    }
    return D;
  }

  Measurement measurement(const YAML::Node &N) const {
    checkKeys(N, MeasurementKeys);
    Measurement M;
    YAML::Node W = required(N, N, "workload");
    M.Workload = text(W);
    auto Wl = T.Workloads.find(M.Workload);
    if (Wl == T.Workloads.end())
      fail(W, fmt::format("unknown workload '{}' (list it under 'workloads')", M.Workload));
    if (N["batch"])
      M.Batch = count(N["batch"]);
    M.Fps = optFigure(N, "fps");
    M.MsPerBatch = optFigure(N, "ms_per_batch");
    M.Gops = optFigure(N, "gops");
    if (int(M.Fps.has_value()) + int(M.MsPerBatch.has_value()) + int(M.Gops.has_value()) != 1)
      fail(N, "a measurement gives exactly one of fps, ms_per_batch, gops");
    if (M.MsPerBatch && !M.Batch)
      fail(N, "ms_per_batch needs the batch size ('batch')");
    if ((M.Fps && M.Fps->Value <= 0) || (M.MsPerBatch && M.MsPerBatch->Value <= 0))
      fail(N, "a measured rate or time must be > 0");
    if (Wl->second.Model.empty() && !M.Gops)
      fail(W, fmt::format("workload '{}' has no model, so the measurement must give 'gops' "
                          "(ops/image cannot be counted)",
                          M.Workload));
    M.PowerW = optFigure(N, "power_w");
    M.SourceOpsPerImage = optFigure(N, "source_gops_per_image");
    if (N["input"])
      M.Input = count(N["input"]);
    if (YAML::Node L = N["layers"]) {
      std::string V = text(L);
      if (V != "all" && V != "conv")
        fail(L, fmt::format("layers must be 'all' or 'conv', got '{}'", V));
      M.ConvOnly = V == "conv";
    }
    if (N["variant"])
      M.Variant = text(N["variant"]);
    if (N["note"])
      M.Note = text(N["note"]);
    return M;
  }

  std::string File;
  DeviceTable T;
};

} // namespace

llvm::Expected<DeviceTable> snow::explore::parseDeviceTable(const std::string &Text,
                                                            const std::string &File) {
  try {
    YAML::Node Root = YAML::Load(Text);
    return TableParser(File).parse(Root);
  } catch (const TableError &E) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), E.Msg);
  } catch (const YAML::Exception &E) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s:%d:%d: %s", File.c_str(),
                                   E.mark.line + 1, E.mark.column + 1, E.msg.c_str());
  }
}

llvm::Expected<DeviceTable> snow::explore::loadDeviceTable(const std::string &Path) {
  auto Buf = snow::readInputFile(Path, /*IsText=*/true);
  if (!Buf)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "cannot read '%s': %s",
                                   Path.c_str(), Buf.getError().message().c_str());
  return parseDeviceTable((*Buf)->getBuffer().str(), Path);
}
