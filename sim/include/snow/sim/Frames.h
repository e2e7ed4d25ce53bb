//===- Frames.h - Input batches and output files of snowsim / snowrtl -*- C++ -*-===//
//
// The two runners read inputs and write outputs the same way: an input file
// holding a batch (N, ...) with N > 1 runs frame by frame, anything else is one
// frame read by readInputTensor; outputs are (C, H, W) for one frame and
// (N, C, H, W) for a batch, int16 or dequantized float32 (docs/onnx.md).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SIM_FRAMES_H
#define SNOW_SIM_FRAMES_H

#include "snow/isa/Program.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace snow::sim {

/// The frames of the input file Path, each C*H*W values in CHW order, in the
/// input's fixed-point format.
llvm::Expected<std::vector<std::vector<int16_t>>> readInputFrames(const std::string &Path,
                                                                  const isa::TensorInfo &In);
/// One frame of the default input (support/Rng's pattern for the model).
std::vector<int16_t> defaultInputFrame(const isa::Program &P);
/// The .npy bytes of Output, the outputs of Frames frames one after another;
/// FloatFrac >= 0 dequantizes to float32.
llvm::Expected<std::string> encodeOutputFrames(const std::string &Path,
                                               const std::vector<int16_t> &Output, size_t Frames,
                                               const isa::TensorInfo &Out, int FloatFrac);

} // namespace snow::sim

#endif
