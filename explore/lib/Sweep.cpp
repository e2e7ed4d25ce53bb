//===- Sweep.cpp - The sweep runner: thread pool, model cache, part file --===//
//
// Tasks are numbered model-major (task = model × points + point) for shard
// ownership, so every process of a job array agrees on who runs what, but
// they are executed point-major: at the start each thread picks a different
// model, and the expensive one-time loads overlap instead of queueing behind
// the first model.
//
//===----------------------------------------------------------------------===//

#include "snow/explore/Sweep.h"
#include "snow/compiler/Compiler.h"
#include "snow/explore/Results.h"
#include "snow/ir/Graph.h"
#include "snow/sim/Energy.h"
#include "snow/sim/Simulator.h"
#include "snow/support/FileIO.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <sched.h>
#include <set>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

using namespace snow;
using namespace snow::explore;

namespace {

llvm::Error error(const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// One line: messages from the libraries may join several with newlines.
std::string oneLine(std::string S) {
  for (char &C : S)
    if (C == '\n' || C == '\r')
      C = ' ';
  while (!S.empty() && S.back() == ' ')
    S.pop_back();
  return S;
}

/// A model as the sweep needs it: loaded and canonicalized once, then
/// quantized once per activation format the swept hardware asks for.
class ModelCache {
public:
  ModelCache(std::string Path) : Path(std::move(Path)) {}

  /// The canonical float graph; the first caller loads it, others wait.
  llvm::Expected<const ir::Graph *> canonical() {
    std::call_once(LoadOnce, [&] {
      auto G = ir::loadModel(Path);
      if (!G) {
        LoadError = llvm::toString(G.takeError());
        return;
      }
      if (auto Err = ir::canonicalize(*G)) {
        LoadError = llvm::toString(std::move(Err));
        return;
      }
      Canonical = std::move(*G);
    });
    if (!LoadError.empty())
      return error(LoadError);
    return &Canonical;
  }

  /// The graph quantized with ActFrac everywhere (see Sweep.h for why not
  /// calibrated). Requires canonical() to have succeeded.
  const ir::Graph &quantized(int ActFrac) {
    std::lock_guard<std::mutex> Lock(M);
    std::unique_ptr<ir::Graph> &G = Quantized[ActFrac];
    if (!G) {
      G = std::make_unique<ir::Graph>(Canonical);
      ir::quantize(*G, ActFrac);
    }
    return *G;
  }

private:
  std::string Path;
  std::once_flag LoadOnce;
  std::string LoadError;
  ir::Graph Canonical;
  std::mutex M;
  std::map<int, std::unique_ptr<ir::Graph>> Quantized;
};

/// The shard's part file, opened for appending and locked so that the same
/// shard cannot run twice on one directory at the same time.
class PartWriter {
public:
  ~PartWriter() {
    if (Fd >= 0)
      ::close(Fd);
  }
  llvm::Error open(const std::string &Path) {
    Fd = ::open(Path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (Fd < 0)
      return error(fmt::format("cannot open '{}': {}", Path, std::strerror(errno)));
    if (::flock(Fd, LOCK_EX | LOCK_NB) != 0)
      return error(fmt::format("'{}' is locked: is this shard already running on this output "
                               "directory?",
                               Path));
    off_t Size = ::lseek(Fd, 0, SEEK_END);
    if (Size == 0)
      return write(csvHeader());
    // A row cut short by a kill would swallow the next row appended after it:
    // cut the file back to its last complete line (the reader ignored it).
    std::string Tail(size_t(std::min<off_t>(Size, 1 << 16)), '\0');
    if (::pread(Fd, Tail.data(), Tail.size(), Size - off_t(Tail.size())) != ssize_t(Tail.size()))
      return error(fmt::format("cannot read '{}': {}", Path, std::strerror(errno)));
    if (Tail.back() != '\n') {
      size_t Nl = Tail.rfind('\n');
      off_t Keep = Nl == std::string::npos ? 0 : Size - off_t(Tail.size()) + off_t(Nl) + 1;
      if (::ftruncate(Fd, Keep) != 0)
        return error(fmt::format("cannot repair '{}': {}", Path, std::strerror(errno)));
      if (Keep == 0)
        return write(csvHeader());
    }
    return llvm::Error::success();
  }
  /// One write per row: an interruption leaves at most a truncated last line,
  /// which the reader drops.
  llvm::Error write(const std::string &Text) {
    std::lock_guard<std::mutex> Lock(M);
    size_t Done = 0;
    while (Done < Text.size()) {
      ssize_t N = ::write(Fd, Text.data() + Done, Text.size() - Done);
      if (N < 0 && errno == EINTR)
        continue;
      if (N < 0)
        return error(fmt::format("cannot append results: {}", std::strerror(errno)));
      Done += size_t(N);
    }
    return llvm::Error::success();
  }

private:
  int Fd = -1;
  std::mutex M;
};

struct Task {
  size_t Model, Point;
};

/// Compiles and simulates one point; every outcome is a row.
ResultRow runPoint(const ir::Graph &Canonical, ModelCache &Cache, const std::string &ModelHash,
                   const isa::HwConfig &Base, const SweepPoint &P) {
  ResultRow R;
  R.Model = Canonical.Name;
  R.Point = P.Index;
  R.Config = P.label();
  R.ModelHash = ModelHash;
  R.Macs = Canonical.usefulMacs();
  auto Hw = pointConfig(Base, P);
  if (!Hw) {
    R.Status = PointStatus::InvalidHw;
    R.Message = oneLine(llvm::toString(Hw.takeError()));
    setInvalidHardware(R, pointYaml(Base, P));
    return R;
  }
  setHardware(R, *Hw);
  const ir::Graph &G = Cache.quantized(int(Hw->ActFracBits));
  auto Prog = compiler::compile(G, *Hw);
  if (!Prog) {
    R.Status = PointStatus::CompileFailed;
    R.Message = oneLine(llvm::toString(Prog.takeError()));
    return R;
  }
  sim::SimOptions SO;
  SO.TimingOnly = true;
  auto Sim = sim::Simulator::create(*Prog, SO);
  if (!Sim) {
    R.Status = PointStatus::SimFailed;
    R.Message = oneLine(llvm::toString(Sim.takeError()));
    return R;
  }
  auto Stats = (*Sim)->run();
  if (!Stats) {
    R.Status = PointStatus::SimFailed;
    R.Message = oneLine(llvm::toString(Stats.takeError()));
    return R;
  }
  R.Cycles = Stats->Cycles;
  R.Macs = Stats->Macs;
  R.DramBytes = Stats->DramReadBytes + Stats->DramWriteBytes;
  if (auto E = sim::builtinEnergyModel(Hw->Name))
    R.EnergyJ = sim::energyOf(*E, *Hw, *Stats).totalJ();
  return R;
}

} // namespace

std::string snow::explore::progressLine(size_t Done, size_t Total, double Seconds, unsigned Width) {
  // The bar keeps its length while the text after it grows and shrinks, and
  // the line is padded to Width so a shorter line overwrites a longer one.
  unsigned Bar = Width >= 40 ? Width - 32 : 8;
  size_t Filled = Total ? std::min(Done, Total) * Bar / Total : Bar;
  std::string Line = "[" + std::string(Filled, '#') + std::string(Bar - Filled, '.') + "]" +
                     fmt::format(" {}/{}  {:.1f} s", Done, Total, Seconds);
  if (Done > 0 && Done < Total)
    Line += fmt::format(", about {:.0f} s left", Seconds / double(Done) * double(Total - Done));
  if (Line.size() < Width)
    Line.resize(Width, ' ');
  return Line;
}

unsigned snow::explore::availableCpus() {
  cpu_set_t Set;
  if (sched_getaffinity(0, sizeof(Set), &Set) == 0 && CPU_COUNT(&Set) > 0)
    return unsigned(CPU_COUNT(&Set));
  return std::max(1u, std::thread::hardware_concurrency());
}

llvm::Expected<SweepSummary> snow::explore::runSweep(const SweepOptions &O,
                                                     const ProgressFn &Progress) {
  auto Start = std::chrono::steady_clock::now();
  auto Elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  };
  if (O.Models.empty())
    return error("no models to sweep");
  auto Base = isa::loadHwConfig(O.Hw);
  if (!Base)
    return Base.takeError();
  if (auto Err = checkSetArgs(O.Sets))
    return Err;

  // Model identity for resuming is the file's content, read up front so a
  // missing file fails before any work.
  std::vector<std::string> Hashes;
  for (const std::string &M : O.Models) {
    auto Buf = snow::readInputFile(M, /*IsText=*/true);
    if (!Buf)
      return error(fmt::format("cannot read model '{}': {}", M, Buf.getError().message()));
    Hashes.push_back(contentHash((*Buf)->getBuffer().str()));
  }

  if (std::error_code EC = llvm::sys::fs::create_directories(partsDir(O.OutDir)))
    return error(fmt::format("cannot create '{}': {}", partsDir(O.OutDir), EC.message()));
  auto Done = readParts(O.OutDir);
  if (!Done)
    return Done.takeError();
  std::set<std::string> DoneKeys; // model hash | hardware hash
  for (const ResultRow &R : *Done)
    DoneKeys.insert(R.ModelHash + "|" + R.HwHash);

  std::vector<SweepPoint> Points = cartesianProduct(O.Sets);
  SweepSummary S;
  S.Points = Points.size();
  S.Tasks = O.Models.size() * Points.size();

  // The hardware hash of a point needs only its text, so skipping costs no
  // compile: the hash of an invalid point is taken the same way.
  std::vector<std::string> PointHash(Points.size());
  for (size_t P = 0; P < Points.size(); ++P) {
    ResultRow Tmp;
    if (auto Hw = pointConfig(*Base, Points[P])) {
      setHardware(Tmp, *Hw);
    } else {
      llvm::consumeError(Hw.takeError());
      setInvalidHardware(Tmp, pointYaml(*Base, Points[P]));
    }
    PointHash[P] = Tmp.HwHash;
  }
  std::vector<Task> Tasks;
  for (size_t P = 0; P < Points.size(); ++P)
    for (size_t M = 0; M < O.Models.size(); ++M) {
      if (!O.Part.owns(M * Points.size() + P))
        continue;
      ++S.InShard;
      if (DoneKeys.count(Hashes[M] + "|" + PointHash[P]))
        ++S.Skipped;
      else
        Tasks.push_back({M, P});
    }

  PartWriter Out;
  if (auto Err = Out.open(partFile(O.OutDir, O.Part.Index, O.Part.Count)))
    return Err;

  std::vector<std::unique_ptr<ModelCache>> Caches;
  for (const std::string &M : O.Models)
    Caches.push_back(std::make_unique<ModelCache>(M));

  S.Threads = O.Threads ? O.Threads : availableCpus();
  S.Threads = unsigned(std::max<size_t>(1, std::min<size_t>(S.Threads, Tasks.size())));
  std::atomic<size_t> Next{0}, Finished{0}, Ok{0}, Invalid{0}, Failed{0};
  std::atomic<bool> Stop{false};
  std::mutex ErrM;
  std::string FatalError;
  std::condition_variable Wake;
  std::mutex WakeM;

  auto Worker = [&] {
    while (!Stop) {
      size_t I = Next++;
      if (I >= Tasks.size())
        return;
      const Task &T = Tasks[I];
      auto RunOne = [&]() -> llvm::Error {
        auto G = Caches[T.Model]->canonical();
        if (!G)
          return G.takeError(); // A broken model stops the sweep: no point can run.
        ResultRow R = runPoint(**G, *Caches[T.Model], Hashes[T.Model], *Base, Points[T.Point]);
        std::atomic<size_t> &Count = R.Status == PointStatus::Ok          ? Ok
                                     : R.Status == PointStatus::SimFailed ? Failed
                                                                          : Invalid;
        ++Count;
        return Out.write(csvLine(R));
      };
      if (llvm::Error Err = RunOne()) {
        std::lock_guard<std::mutex> Lock(ErrM);
        if (FatalError.empty())
          FatalError = llvm::toString(std::move(Err));
        else
          llvm::consumeError(std::move(Err));
        Stop = true;
      }
      ++Finished;
      Wake.notify_one();
    }
  };
  std::vector<std::thread> Pool;
  for (unsigned I = 0; I < S.Threads && !Tasks.empty(); ++I)
    Pool.emplace_back(Worker);
  // The calling thread only reports progress: its wait costs no CPU.
  while (Finished < Tasks.size() && !Stop) {
    std::unique_lock<std::mutex> Lock(WakeM);
    Wake.wait_for(Lock, std::chrono::milliseconds(100));
    if (Progress)
      Progress(Finished, Tasks.size(), Elapsed());
  }
  for (std::thread &T : Pool)
    T.join();
  if (!FatalError.empty())
    return error(FatalError);
  if (Progress)
    Progress(Finished, Tasks.size(), Elapsed());

  S.Ran = Finished;
  S.Ok = Ok;
  S.Invalid = Invalid;
  S.Failed = Failed;
  auto Merged = mergeParts(O.OutDir);
  if (!Merged)
    return Merged.takeError();
  S.MergedRows = *Merged;
  S.Seconds = Elapsed();
  return S;
}
