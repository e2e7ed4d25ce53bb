//===- Simulator.cpp - The public face of the simulator -------------------===//
//
// Decodes the program, lays the constant data and the input tensor into DRAM
// (HWC, int16), runs the machine and reads the output tensor back (CHW).
//
//===----------------------------------------------------------------------===//

#include "snow/sim/Simulator.h"
#include "Machine.h"
#include "snow/sim/DramImage.h"

using namespace snow;
using namespace snow::sim;

Simulator::Simulator(const isa::Program &P, SimOptions Opts) : Prog(P), Opts(Opts) {}
Simulator::~Simulator() = default;

llvm::Expected<std::unique_ptr<Simulator>> Simulator::create(const isa::Program &P,
                                                             SimOptions Opts) {
  std::vector<isa::Inst> Code;
  Code.reserve(P.Code.size());
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
