//===- Simulator.cpp - The public face of the simulator -------------------===//
//
// Decodes the program, lays the constant data and the input tensor into DRAM
// (HWC, int16), runs the machine and reads the output tensor back (CHW).
//
//===----------------------------------------------------------------------===//

#include "snow/sim/Simulator.h"
#include "Machine.h"
#include <cstring>
#include <fmt/format.h>

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
  if (P.DataAddr + P.Data.size() > P.Hw.dramBytes())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "constant data does not fit in DRAM");
  std::unique_ptr<Simulator> S(new Simulator(P, Opts));
  S->M = std::make_unique<Machine>(P, std::move(Code), Opts);
  if (!P.Data.empty())
    std::memcpy(S->M->dram() + P.DataAddr, P.Data.data(), P.Data.size());
  return S;
}

llvm::Error Simulator::setInput(const std::vector<int16_t> &Chw) {
  const isa::TensorInfo &In = Prog.Input;
  if (Chw.size() != uint64_t(In.C) * In.H * In.W)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "input has %zu values, the program expects %ux%ux%u",
                                   Chw.size(), In.C, In.H, In.W);
  int16_t *D = reinterpret_cast<int16_t *>(M->dram() + In.Addr);
  for (uint32_t C = 0; C < In.C; ++C)
    for (uint32_t Y = 0; Y < In.H; ++Y)
      for (uint32_t X = 0; X < In.W; ++X)
        D[(uint64_t(Y) * In.W + X) * In.C + C] = Chw[(uint64_t(C) * In.H + Y) * In.W + X];
  return llvm::Error::success();
}

std::vector<int16_t> Simulator::output() const {
  const isa::TensorInfo &Out = Prog.Output;
  std::vector<int16_t> Chw(uint64_t(Out.C) * Out.H * Out.W);
  const int16_t *D = reinterpret_cast<const int16_t *>(M->dram() + Out.Addr);
  for (uint32_t C = 0; C < Out.C; ++C)
    for (uint32_t Y = 0; Y < Out.H; ++Y)
      for (uint32_t X = 0; X < Out.W; ++X)
        Chw[(uint64_t(C) * Out.H + Y) * Out.W + X] = D[(uint64_t(Y) * Out.W + X) * Out.C + C];
  return Chw;
}

llvm::Expected<SimStats> Simulator::run() {
  SimStats S;
  if (auto Err = M->run(S))
    return Err;
  return S;
}
