//===- DramImage.h - The program's tensors in DRAM ----------------*- C++ -*-===//
//
// What a run starts from and ends with, for the simulator and the RTL harness
// alike: the constant data (weights, biases) at the program's DataAddr, the
// input tensor written at Input.Addr in the accelerator's HWC int16 layout,
// and the output read back from Output.Addr into CHW order (docs/isa.md,
// program-format.md). Dram is the run's whole DRAM, Hw.dramBytes() bytes.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SIM_DRAMIMAGE_H
#define SNOW_SIM_DRAMIMAGE_H

#include "snow/isa/Program.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <vector>

namespace snow::sim {

/// Fails unless the constant data fits in DRAM (checked before any copy).
llvm::Error checkConstantData(const isa::Program &P);
/// Fails, naming what takes the room, unless simulating P fits in
/// snow::maxSimBytes(): the on-chip buffers (when Values: a functional run
/// holds them as arrays), the constant data (held once in memory, once in the
/// simulated DRAM), and the input and output tensors (in DRAM and as frames).
/// Checked before anything is allocated, so a hostile prog.bin (a 4 GiB maps
/// buffer, a 2^31-value input) is one error line instead of an 8 GB run.
llvm::Error checkSimMemory(const isa::Program &P, bool Values, const std::string &Name);
/// Copies the constant data to DataAddr; checkConstantData must have passed.
void loadConstantData(const isa::Program &P, uint8_t *Dram);
/// Writes Chw (the input tensor in CHW order) to Input.Addr as HWC; fails if
/// its size is not the program's input's.
llvm::Error writeInput(const isa::Program &P, const std::vector<int16_t> &Chw, uint8_t *Dram);
/// Reads the output tensor at Output.Addr (HWC) back in CHW order.
std::vector<int16_t> readOutput(const isa::Program &P, const uint8_t *Dram);

} // namespace snow::sim

#endif
