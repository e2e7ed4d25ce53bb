//===- snowdevices.cpp - The reference device table, with utilization ----===//
//
// snowdevices [TABLE.yaml] [--json FILE]
//
// Loads the published reference devices (default docs/devices.yaml of the
// source tree this tool was built from), computes every measurement's
// utilization from the project's own models and prints one line per
// measurement; --json writes everything (sources included) for snowreport.
//
//===----------------------------------------------------------------------===//

#include "snow/explore/Devices.h"
#include "snow/support/CommandLine.h"
#include "snow/support/FileIO.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace snow;
using namespace snow::explore;
namespace cl = llvm::cl;

static cl::OptionCategory Cat("snowdevices options");
static cl::opt<std::string> TablePath(cl::Positional, cl::desc("[devices.yaml]"),
                                      cl::init(SNOW_DEVICES_DEFAULT), cl::cat(Cat));
static cl::opt<std::string> JsonPath("json", cl::desc("Write the table and results as JSON"),
                                     cl::value_desc("file|-"), cl::cat(Cat));

static int fail(const llvm::Twine &Msg) { return toolError("snowdevices", Msg); }

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  if (!parseToolCommandLine(Argc, Argv, "snowdevices",
                            "Published reference devices and their utilization on the "
                            "project's models\n",
                            Cat))
    return 1;
  auto T = loadDeviceTable(TablePath);
  if (!T)
    return fail(llvm::toString(T.takeError()));
  auto Results = computeDeviceResults(*T);
  if (!Results)
    return fail(llvm::toString(Results.takeError()));
  if (!JsonPath.empty()) {
    if (auto Err = writeFileAtomic(JsonPath, deviceResultsJson(*T, *Results)))
      return fail(llvm::toString(std::move(Err)));
    if (JsonPath == "-")
      return 0;
  }
  // "*" marks a figure computed rather than printed by the source (its
  // flags, in the JSON and the report, say how). "ops" says whose op count
  // the G-ops/s and utilization use, "scope" what it counts.
  llvm::outs() << fmt::format("{:<24} {:<12} {:>5} {:<5} {:<5} {:>10} {:>11} {:>11} {:>7} {:>8}\n",
                              "device", "workload", "batch", "scope", "ops", "fps", "G-ops/s",
                              "peak", "util %", "G-ops/W");
  for (const DeviceResult &R : *Results) {
    bool Derived = llvm::any_of(
        R.Flags, [](const std::string &F) { return !llvm::StringRef(F).startswith("power:"); });
    std::string Util = R.Comparable ? fmt::format("{:.1f}", 100 * R.Utilization) : "n/c";
    llvm::outs() << fmt::format(
        "{:<24} {:<12} {:>5} {:<5} {:<5} {:>10} {:>11.1f} {:>11.0f} {:>6}{} {:>8}\n",
        R.DeviceName.substr(0, 24), R.Workload.substr(0, 12),
        R.Batch ? std::to_string(R.Batch) : "-", R.Scope == "conv layers" ? "conv" : "net",
        R.OpsCountedBy == "source" ? "src" : "ours", R.Fps > 0 ? fmt::format("{:.1f}", R.Fps) : "-",
        R.Gops, R.PeakGops, Util, Derived ? "*" : " ",
        R.GopsPerW > 0 ? fmt::format("{:.1f}", R.GopsPerW) : "-");
  }
  llvm::outs() << "1 MAC = 2 ops; utilization = fps x ops/image / peak, ops/image counted by the "
                  "source where it states its count (src), else on the project's model (ours); "
                  "scope: whole network (net) or conv layers (conv); n/c = not comparable (it "
                  "would exceed 100 %: the source does fewer multiplies than counted); * = see "
                  "flags (snowdevices --json)\n";
  return 0;
}
