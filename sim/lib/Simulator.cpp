//===- Simulator.cpp - The public face of the simulator -------------------===//
//
// Decodes the program, lays the constant data and the input tensor into DRAM
// (HWC, int16), runs the machine and reads the output tensor back (CHW). A
// timing-only run leaves DRAM as zeros (values cannot change its cycles).
//
//===----------------------------------------------------------------------===//

#include "snow/sim/Simulator.h"
#include "Machine.h"
#include "snow/sim/DramImage.h"
#include "snow/support/HugePages.h"

using namespace snow;
using namespace snow::sim;

Simulator::Simulator(const isa::Program &P, SimOptions Opts) : Prog(P), Opts(Opts) {}
Simulator::~Simulator() = default;

llvm::Expected<std::unique_ptr<Simulator>> Simulator::create(const isa::Program &P,
                                                             SimOptions Opts) {
  std::vector<isa::Inst> Code;
  Code.reserve(P.Code.size());
  adviseHugePages(Code.data(), Code.capacity() * sizeof(isa::Inst));
  for (size_t Pc = 0; Pc < P.Code.size(); ++Pc) {
    auto I = isa::decode(P.Code[Pc]);
    if (!I)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "instruction at pc %zu: %s",
                                     Pc, llvm::toString(I.takeError()).c_str());
    Code.push_back(*I);
  }
  if (auto Err = checkConstantData(P))
    return Err;
  std::unique_ptr<Simulator> S(new Simulator(P, Opts));
  S->M = std::make_unique<Machine>(P, std::move(Code), Opts);
  // A timing-only run never reads a value from DRAM: copying the weights
  // image in would cost more than the run itself.
  if (!Opts.TimingOnly)
    loadConstantData(P, S->M->dram());
  return S;
}

llvm::Error Simulator::setInput(const std::vector<int16_t> &Chw) {
  return writeInput(Prog, Chw, M->dram());
}

std::vector<int16_t> Simulator::output() const { return readOutput(Prog, M->dram()); }

llvm::Expected<SimStats> Simulator::run() {
  SimStats S;
  if (auto Err = M->run(S))
    return Err;
  return S;
}
