//===- RtlSimulator.cpp - Run a prog.bin on the Verilated RTL -------------===//
//
// Picks the model built for the program's hardware, lays out DRAM with the
// simulator's DramImage functions, runs the model and turns what it reports
// into SimStats (through the simulator's finishStats) or a SimFault.
//
//===----------------------------------------------------------------------===//

#include "snow/rtl/RtlSimulator.h"
#include "FaultText.h"
#include "RtlModel.h"
#include "snow/sim/DramImage.h"
#include "snow/sim/Stats.h"
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <unistd.h>

using namespace snow;
using namespace snow::rtl;

// The models compiled in: one generated ModelVsnow_<cfg>.cpp per entry.
#define SNOW_RTL_MODEL(CFG) std::unique_ptr<RtlModel> makeModel_##CFG();
namespace snow::rtl {
#include "RtlModels.inc"
}
#undef SNOW_RTL_MODEL

namespace {
struct ModelEntry {
  const char *Config;
  std::unique_ptr<RtlModel> (*Make)();
};
const ModelEntry Models[] = {
#define SNOW_RTL_MODEL(CFG) {#CFG, snow::rtl::makeModel_##CFG},
#include "RtlModels.inc"
#undef SNOW_RTL_MODEL
};

llvm::Error error(const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}
} // namespace

void FreeDeleter::operator()(uint8_t *P) const { std::free(P); }

std::vector<std::string> snow::rtl::builtConfigs() {
  std::vector<std::string> Names;
  for (const ModelEntry &M : Models)
    Names.push_back(M.Config);
  return Names;
}

bool snow::rtl::traceSupported() { return SNOW_RTL_TRACE; }

RtlSimulator::RtlSimulator(const isa::Program &P, RtlOptions Opts) : Prog(P), Opts(Opts) {}
RtlSimulator::~RtlSimulator() = default;

const char *RtlSimulator::config() const { return Model->config(); }

llvm::Expected<std::unique_ptr<RtlSimulator>> RtlSimulator::create(const isa::Program &P,
                                                                   RtlOptions Opts) {
  std::unique_ptr<RtlSimulator> S(new RtlSimulator(P, Opts));
  // The same checks, in the same order and words, as sim::Simulator::create.
  S->Code.reserve(P.Code.size());
  for (size_t Pc = 0; Pc < P.Code.size(); ++Pc) {
    auto I = isa::decode(P.Code[Pc]);
    if (!I)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "instruction at pc %zu: %s",
                                     Pc, llvm::toString(I.takeError()).c_str());
    S->Code.push_back(*I);
  }
  if (auto Err = sim::checkConstantData(P))
    return Err;

  std::string Built;
  for (const ModelEntry &M : Models) {
    Built += (Built.empty() ? "" : ", ") + std::string(M.Config);
    auto Hw = isa::loadHwConfig(M.Config);
    if (!Hw)
      return Hw.takeError();
    if (*Hw == P.Hw && !S->Model)
      S->Model = M.Make();
  }
  if (!S->Model)
    return error(fmt::format("no RTL model for hardware '{}' (built: {}; set SNOW_RTL_CONFIGS)",
                             P.Hw.Name, Built));
  if (P.Code.size() > S->Model->imemWords())
    return error(fmt::format("the program has {} instructions, more than the RTL's instruction "
                             "memory holds ({}, IMEM_AW in snow_hw_pkg)",
                             P.Code.size(), S->Model->imemWords()));
  if (!Opts.TracePath.empty() && !traceSupported())
    return error("--trace needs models built with tracing (configure with -DSNOW_RTL_TRACE=ON)");
  // calloc maps zero pages lazily: a 1 GiB DRAM costs only what is touched.
  S->Dram.reset(static_cast<uint8_t *>(std::calloc(P.Hw.dramBytes(), 1)));
  if (!S->Dram)
    return error(fmt::format("cannot allocate {} MiB of DRAM", P.Hw.dramBytes() >> 20));
  sim::loadConstantData(P, S->Dram.get());
  return S;
}

llvm::Error RtlSimulator::setInput(const std::vector<int16_t> &Chw) {
  return sim::writeInput(Prog, Chw, Dram.get());
}

std::vector<int16_t> RtlSimulator::output() const { return sim::readOutput(Prog, Dram.get()); }

llvm::Expected<sim::SimStats> RtlSimulator::run() {
  sim::SimStats S;
  sim::initLayerStats(S, Prog);
  EventLog Log;
  Log.Stats = &S;

  RunInput In;
  In.Code = &Prog.Code;
  In.NumLayers = uint32_t(Prog.Layers.size());
  In.MaxCycles = Opts.MaxCycles;
  In.Dram = Dram.get();
  In.DramBytes = Prog.Hw.dramBytes();
  // The waveform goes to a temporary file next to its destination, renamed
  // when the run is over, so an interrupted run leaves no partial trace.
  std::string TraceTmp;
  if (!Opts.TracePath.empty()) {
    TraceTmp = Opts.TracePath + fmt::format(".tmp-{}", getpid());
    if (std::FILE *F = std::fopen(TraceTmp.c_str(), "wb"))
      std::fclose(F);
    else
      return error(fmt::format("cannot write the trace '{}'", Opts.TracePath));
    In.TraceFile = TraceTmp;
  }
  RunOutcome R = Model->run(In, Log);
  if (!TraceTmp.empty()) {
    std::error_code EC;
    std::filesystem::rename(TraceTmp, Opts.TracePath, EC);
    if (EC) {
      std::filesystem::remove(TraceTmp, EC);
      return error(fmt::format("cannot write the trace '{}'", Opts.TracePath));
    }
  }

  auto Fault = [&](uint32_t Pc, uint64_t Cycle, std::string Reason) -> llvm::Error {
    std::string Text = Pc < Code.size() ? isa::disassemble(Code[Pc]) : "<no instruction>";
    return llvm::make_error<sim::SimFault>(Pc, Text, std::move(Reason), Cycle);
  };
  switch (R.K) {
  case RunOutcome::Faulted:
    return Fault(R.Pc, R.Cycle, faultReason(Prog, Code, R));
  case RunOutcome::Runaway:
    return Fault(R.Pc, R.Cycle,
                 fmt::format("still running after --max-cycles {} cycles", Opts.MaxCycles));
  case RunOutcome::Done:
    break;
  }
  if (Log.BadLayer != EventLog::NoLayer)
    return error(fmt::format("the RTL attributed work to layer {}, outside the program's layer "
                             "table ({} layers)",
                             Log.BadLayer, Prog.Layers.size()));
  const RtlCounters &C = R.Counters;
  S.MacCycles = C.MacCycles;
  S.DramReadBytes = C.DramReadBytes;
  S.DramWriteBytes = C.DramWriteBytes;
  S.DramBusyCycles = C.DramBusy;
  S.CtrlInstructions = C.CtrlInsts;
  S.UnitOps = C.UnitOps;
  S.CtrlStallQueueFull = C.CtrlStall;
  S.CtrlStallFetch = C.FetchStall;
  S.DramCodeBytes = C.DramCodeBytes;
  sim::UnitCycles *Units[] = {&S.Load, &S.Compute, &S.Store};
  for (unsigned U = 0; U < 3; ++U) {
    Units[U]->Busy = C.Busy[U];
    Units[U]->WaitSem = C.WaitSem[U];
    Units[U]->WaitDram = C.WaitDram[U];
    Units[U]->WaitAcc = C.WaitAcc[U];
  }
  sim::finishStats(S, Log.Marks, Log.Prologue, C.TotalCycles);
  S.RailsCounted = true; // from the DRAM write port, as snowsim counts at its store
  S.RailFrames = 1;
  return S;
}
