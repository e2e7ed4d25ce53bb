//===- snowsweep.cpp - Sweep hardware parameters over models --------------===//
//
// snowsweep MODEL.yaml... --set KEY=V1,V2,... [--set ...] [--hw BASE]
//           --out DIR [--shard I/N] [-j N] [--quiet]
// snowsweep --merge --out DIR
//
// A thin driver over snow_explore (explore/include/snow/explore/Sweep.h).
// Every failure is one line on stderr and a non-zero exit; points that fail
// are rows with a status in DIR/results.csv, not failures of the tool.
//
//===----------------------------------------------------------------------===//

#include "snow/explore/Results.h"
#include "snow/explore/Sweep.h"
#include "snow/support/CommandLine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>
#include <unistd.h>

using namespace snow;
using namespace snow::explore;
namespace cl = llvm::cl;

static cl::OptionCategory Cat("snowsweep options");
static cl::list<std::string> Models(cl::Positional, cl::desc("<model.yaml>..."), cl::cat(Cat));
static cl::list<std::string> Sets("set",
                                  cl::desc("Hardware key and the values to sweep it over "
                                           "(repeatable; the sweep is the cartesian product)"),
                                  cl::value_desc("KEY=V1,V2,..."), cl::cat(Cat));
static cl::opt<std::string> HwName("hw", cl::desc("Base hardware: preset or YAML file"),
                                   cl::value_desc("preset|file"), cl::init("zc706"), cl::cat(Cat));
static cl::opt<std::string> OutDir("out", cl::desc("Output directory (resumable)"),
                                   cl::value_desc("DIR"), cl::cat(Cat));
static cl::opt<std::string> ShardArg("shard",
                                     cl::desc("Run only shard I of N (1-based, e.g. a Slurm "
                                              "array index); shards merge automatically"),
                                     cl::value_desc("I/N"), cl::init("1/1"), cl::cat(Cat));
static cl::opt<unsigned> Jobs("j", cl::Prefix,
                              cl::desc("Threads (default: every CPU this process may use)"),
                              cl::value_desc("N"), cl::init(0), cl::cat(Cat));
static cl::opt<bool> Merge("merge",
                           cl::desc("Only merge DIR/parts/*.csv into DIR/results.csv and .json"),
                           cl::cat(Cat));
static cl::opt<bool> Quiet("quiet", cl::desc("Print only errors"), cl::cat(Cat));

static int fail(const llvm::Twine &Msg) { return toolError("snowsweep", Msg); }

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  if (!parseToolCommandLine(Argc, Argv, "snowsweep",
                            "Compile and simulate models over a grid of hardware parameters\n",
                            Cat))
    return 1;
  if (OutDir.empty())
    return fail("no output directory: use --out DIR");

  if (Merge) {
    if (!Models.empty() || !Sets.empty())
      return fail("--merge takes only --out DIR");
    auto N = mergeParts(OutDir);
    if (!N)
      return fail(llvm::toString(N.takeError()));
    if (!Quiet)
      llvm::outs() << fmt::format("merged {} rows into {}/results.csv and results.json\n", *N,
                                  OutDir.getValue());
    return 0;
  }
  if (Models.empty())
    return fail("no models: give one or more model YAML files");

  SweepOptions O;
  O.Models.assign(Models.begin(), Models.end());
  for (const std::string &S : Sets) {
    auto A = parseSetArg(S);
    if (!A)
      return fail(llvm::toString(A.takeError()));
    O.Sets.push_back(std::move(*A));
  }
  auto Part = parseShard(ShardArg);
  if (!Part)
    return fail(llvm::toString(Part.takeError()));
  O.Part = *Part;
  O.Hw = HwName;
  O.OutDir = OutDir;
  O.Threads = Jobs;

  // A bar only for a person watching: logs of batch jobs stay clean.
  bool Bar = !Quiet && ::isatty(2);
  ProgressFn Progress;
  if (Bar)
    Progress = [](size_t Done, size_t Total, double Secs) {
      llvm::errs() << "\r" << progressLine(Done, Total, Secs);
      llvm::errs().flush();
    };
  auto S = runSweep(O, Progress);
  if (Bar)
    llvm::errs() << "\n";
  if (!S)
    return fail(llvm::toString(S.takeError()));
  if (!Quiet)
    llvm::outs() << fmt::format(
        "{} models x {} points = {} tasks; shard {} owns {}: {} already done, ran {} "
        "({} ok, {} invalid, {} failed) on {} threads in {:.1f} s\n"
        "{} rows in {}/results.csv and results.json\n",
        O.Models.size(), S->Points, S->Tasks, O.Part.str(), S->InShard, S->Skipped, S->Ran, S->Ok,
        S->Invalid, S->Failed, S->Threads, S->Seconds, S->MergedRows, O.OutDir);
  return 0;
}
