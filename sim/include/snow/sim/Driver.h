//===- Driver.h - The command-line driver shared by snowsim and snowrtl -*- C++ -*-===//
//
// snowsim (the simulator) and snowrtl (the Verilated RTL) are one tool with
// two engines: the same options, program loading, --hw check, input frames,
// per-frame run loop, outputs written all or nothing, --stats-json, report and
// exit codes. This driver holds all of that once, so the two can only differ
// in the engine they plug in and the engine's own options (snowsim's
// --timing-only and --trace out.json, snowrtl's --trace out.fst).
//
// Exit codes (docs/stats-json.md, "Exit codes"): 0 success; 1 usage error,
// bad input, or a file that could not be read or written; 2 the simulated
// program faulted (a SimFault: pc, instruction, reason). Every failure is
// one line on stderr.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SIM_DRIVER_H
#define SNOW_SIM_DRIVER_H

#include "snow/isa/Program.h"
#include "snow/sim/Simulator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace snow::sim {

/// The exit codes of snowsim and snowrtl.
enum ExitCode : int {
  ExitSuccess = 0,
  ExitBadInput = 1, ///< Usage, unreadable or invalid input, unwritable output.
  ExitFault = 2,    ///< The simulated program faulted.
};

/// A file a run produces: path and bytes.
using OutputFile = std::pair<std::string, std::string>;

/// One run of a program on one frame: create, set input, run, read output.
class Engine {
public:
  virtual ~Engine();
  /// Input in CHW order, fixed point in the program's input format.
  virtual llvm::Error setInput(const std::vector<int16_t> &Chw) = 0;
  /// Runs to completion; a program fault is a SimFault.
  virtual llvm::Expected<SimStats> run() = 0;
  /// The output tensor in CHW order (after a successful run).
  virtual std::vector<int16_t> output() const = 0;
  /// Files the engine made during run() (a trace), written with the run's
  /// outputs on success and on their own when the program faulted (that is
  /// when a trace is wanted). Called once, after run().
  virtual std::vector<OutputFile> takeFiles() { return {}; }
  /// How the engine is named in "simulated N cycles in T s (..., NAME)".
  virtual std::string name() const = 0;
};

/// What the driver asks of a tool's engine.
class EngineFactory {
public:
  virtual ~EngineFactory();
  /// Refuses an option combination the engine cannot honour, before any
  /// run (e.g. value outputs without values). WantsValues: --output or
  /// --output-float was given.
  virtual llvm::Error checkOptions(bool WantsValues) const {
    (void)WantsValues;
    return llvm::Error::success();
  }
  /// Whether the engine reads the program's constant image (weights): an
  /// engine that computes no values says no, and the image is not copied.
  virtual bool readsConstantData() const { return true; }
  /// The --max-seconds limit of each frame (0 = none), set by the driver
  /// before create(); an engine that cannot stop on time may ignore it.
  double MaxSeconds = 0;
  /// An engine for frame Frame (0 = the first) of a run of P.
  virtual llvm::Expected<std::unique_ptr<Engine>> create(const isa::Program &P, size_t Frame,
                                                         uint64_t MaxCycles) = 0;
};

/// How a tool presents itself.
struct ToolInfo {
  std::string Name;              ///< "snowsim": error prefix and --help.
  std::string Overview;          ///< --help's first line.
  llvm::cl::OptionCategory *Cat; ///< The tool's options, the driver's join it.
};

/// The whole tool: parses the command line (the driver's options plus those
/// the tool registered in Info.Cat), runs and reports. Returns the exit code.
int runTool(int Argc, char **Argv, const ToolInfo &Info, EngineFactory &Factory);

} // namespace snow::sim

#endif
