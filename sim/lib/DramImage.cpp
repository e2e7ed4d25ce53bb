//===- DramImage.cpp - The program's tensors in DRAM ----------------------===//
//
// Activations live in DRAM as HWC int16 (channel-minor); tensors outside the
// accelerator (.npy files) are CHW. Shared by the simulator and snowrtl.
//
//===----------------------------------------------------------------------===//

#include "snow/sim/DramImage.h"
#include <cstring>

using namespace snow;
using namespace snow::sim;

llvm::Error snow::sim::checkConstantData(const isa::Program &P) {
  if (P.DataAddr + P.dataBytes() > P.Hw.dramBytes())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "constant data does not fit in DRAM");
  return llvm::Error::success();
}

void snow::sim::loadConstantData(const isa::Program &P, uint8_t *Dram) {
  if (!P.Data.empty())
    std::memcpy(Dram + P.DataAddr, P.Data.data(), P.Data.size());
}

llvm::Error snow::sim::writeInput(const isa::Program &P, const std::vector<int16_t> &Chw,
                                  uint8_t *Dram) {
  const isa::TensorInfo &In = P.Input;
  const uint64_t Frame = uint64_t(In.C) * In.H * In.W;
  if (Chw.size() != Frame * P.Batch)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "input has %zu values, the program expects %u frame(s) of "
                                   "%ux%ux%u",
                                   Chw.size(), P.Batch, In.C, In.H, In.W);
  // A batch's frames lie one after another (isa::Program::Batch).
  for (uint64_t F = 0; F < P.Batch; ++F) {
    int16_t *D = reinterpret_cast<int16_t *>(Dram + In.Addr + F * In.bytes());
    const int16_t *S = Chw.data() + F * Frame;
    for (uint32_t C = 0; C < In.C; ++C)
      for (uint32_t Y = 0; Y < In.H; ++Y)
        for (uint32_t X = 0; X < In.W; ++X)
          D[(uint64_t(Y) * In.W + X) * In.C + C] = S[(uint64_t(C) * In.H + Y) * In.W + X];
  }
  return llvm::Error::success();
}

std::vector<int16_t> snow::sim::readOutput(const isa::Program &P, const uint8_t *Dram) {
  const isa::TensorInfo &Out = P.Output;
  const uint64_t Frame = uint64_t(Out.C) * Out.H * Out.W;
  std::vector<int16_t> Chw(Frame * P.Batch);
  for (uint64_t F = 0; F < P.Batch; ++F) {
    const int16_t *D = reinterpret_cast<const int16_t *>(Dram + Out.Addr + F * Out.bytes());
    int16_t *O = Chw.data() + F * Frame;
    for (uint32_t C = 0; C < Out.C; ++C)
      for (uint32_t Y = 0; Y < Out.H; ++Y)
        for (uint32_t X = 0; X < Out.W; ++X)
          O[(uint64_t(C) * Out.H + Y) * Out.W + X] = D[(uint64_t(Y) * Out.W + X) * Out.C + C];
  }
  return Chw;
}
