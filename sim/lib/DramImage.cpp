//===- DramImage.cpp - The program's tensors in DRAM ----------------------===//
//
// Activations live in DRAM as HWC int16 (channel-minor); tensors outside the
// accelerator (.npy files) are CHW. Shared by the simulator and snowrtl.
//
//===----------------------------------------------------------------------===//

#include "snow/sim/DramImage.h"
#include "snow/support/Limits.h"
#include <cstring>
#include <fmt/format.h>

using namespace snow;
using namespace snow::sim;

llvm::Error snow::sim::checkConstantData(const isa::Program &P) {
  if (P.DataAddr + P.dataBytes() > P.Hw.dramBytes())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "constant data does not fit in DRAM");
  return llvm::Error::success();
}

llvm::Error snow::sim::checkSimMemory(const isa::Program &P, bool Values, const std::string &Name) {
  const isa::HwConfig &Hw = P.Hw;
  // Every factor is at most 32 bits, so no product below can overflow.
  const uint64_t K = uint64_t(Hw.cus()) * Hw.VmacsPerCu, L = Hw.LanesPerVmac;
  const uint64_t Onchip = Values ? uint64_t(Hw.cus()) * Hw.mapsElems() * 2 +
                                       K * Hw.weightsWords() * L * 2 + K * Hw.AccEntries * L * 8 +
                                       K * L * 8
                                 : 0;
  const uint64_t Data = Values ? 2 * P.dataBytes() : 0;
  auto TensorBytes = [&](const isa::TensorInfo &T) {
    return 2 * (uint64_t(T.C) * T.H * T.W * 2) * P.Batch; // in DRAM and as frames
  };
  const uint64_t Tensors = TensorBytes(P.Input) + TensorBytes(P.Output);
  const uint64_t Total = Onchip + Data + Tensors;
  if (Total <= snow::maxSimBytes())
    return llvm::Error::success();
  auto Mib = [](uint64_t B) { return (B + (1 << 20) - 1) >> 20; };
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      fmt::format("{}: simulating this program needs {} MiB (on-chip buffers {} MiB, constant "
                  "data {} MiB, input and output tensors {} MiB), more than the {} MiB a "
                  "simulation may use (the environment variable SNOW_MAX_SIM_MB raises it)",
                  Name, Mib(Total), Mib(Onchip), Mib(Data), Mib(Tensors),
                  snow::maxSimBytes() >> 20));
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
