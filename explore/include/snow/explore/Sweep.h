//===- Sweep.h - Compile and simulate every point of a sweep --------*- C++ -*-===//
//
// runSweep is snowsweep without the command line: for every (model, hardware
// point) of its shard that the output directory does not hold yet, it
// compiles the model for the point and runs the timing-only simulator, on a
// pool of threads inside this process (the compiler and simulator keep no
// global state). Each result is appended to the shard's part file as soon as
// it is known; at the end all parts are merged into results.csv / .json.
//
// Models are loaded and quantized once per (model, act_frac_bits) and shared
// read-only by all threads. They are quantized with the hardware's uniform
// activation format, not calibrated: the timing contract (docs/architecture.md
// §3) depends on operation sizes, never on data, and formats only change
// shift fields, so the float calibration run snowc makes would only cost time
// (4 s for ResNet-50). A test (tests/explore/SweepRunTest.cpp) pins that.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_EXPLORE_SWEEP_H
#define SNOW_EXPLORE_SWEEP_H

#include "snow/explore/SweepSpec.h"
#include "llvm/Support/Error.h"
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace snow::explore {

struct SweepOptions {
  std::vector<std::string> Models; ///< Model YAML paths.
  std::vector<SetArg> Sets;        ///< Checked with checkSetArgs.
  std::string Hw = "zc706";        ///< Base: a preset name or a hardware YAML file.
  std::string OutDir;
  Shard Part;
  unsigned Threads = 0; ///< 0: every CPU this process may run on.
};

struct SweepSummary {
  size_t Points = 0;                               ///< Hardware points in the product.
  size_t Tasks = 0;                                ///< Models × points.
  size_t InShard = 0;                              ///< Tasks this shard owns.
  size_t Skipped = 0;                              ///< Owned but already in the output directory.
  size_t Ran = 0, Ok = 0, Invalid = 0, Failed = 0; ///< Of the tasks run now.
  size_t MergedRows = 0;                           ///< Rows in results.csv after the merge.
  unsigned Threads = 0;
  double Seconds = 0;
};

/// Called from the calling thread about ten times a second while points run,
/// and once at the end with Done == Total.
using ProgressFn = std::function<void(size_t Done, size_t Total, double Seconds)>;

/// Runs the sweep. Errors are user errors (unreadable model, bad base, output
/// directory not writable, the same shard running twice); a point that fails
/// is a row with a status, never an error.
llvm::Expected<SweepSummary> runSweep(const SweepOptions &O, const ProgressFn &Progress = {});

/// "[#########...........] 37/96  12.3 s, about 19 s left": one line of at
/// least Width columns (padded with spaces) for a terminal progress bar.
std::string progressLine(size_t Done, size_t Total, double Seconds, unsigned Width = 72);

/// Threads available to this process (its CPU affinity mask, which batch
/// schedulers such as Slurm set to the job's allocation).
unsigned availableCpus();

} // namespace snow::explore

#endif
