//===- Input.h - The model input of a reference run -----------------*- C++ -*-===//
//
// A reference run needs the input twice: in fixed point for runFixed and in
// float for runFloat. Where it comes from decides which one is the original:
// the default input and float32 .npy files are float (the fixed copy is
// quantized with the contract's rule, so the report includes input
// quantization), int16 .npy files are already fixed point (the float copy is
// their exact value).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_REF_INPUT_H
#define SNOW_REF_INPUT_H

#include "snow/ir/Graph.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace snow::ref {

struct ModelInput {
  std::vector<int16_t> Fixed; ///< CHW, G.InputFrac fraction bits.
  std::vector<float> Float;   ///< CHW, same values before quantization.
  std::string Origin;         ///< For reports: "default input" or the file name.
};

/// The default input of G (snow::defaultInputValues, seeded by the model name).
ModelInput defaultModelInput(const ir::Graph &G);

/// Reads a float32 or int16 .npy of shape (C,H,W) or (1,C,H,W) equal to the
/// model input. Errors name the file and both shapes.
llvm::Expected<ModelInput> readModelInput(const ir::Graph &G, const std::string &Path);

} // namespace snow::ref

#endif
