//===- Tensors.h - Where every layer's output lives in DRAM -----*- C++ -*-===//
//
// Internal to snow_compiler. See Tensors.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_TENSORS_H
#define SNOW_COMPILER_TENSORS_H

#include "Plan.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace snow::compiler {

/// Decides where every layer's output lives. A concat's inputs become views
/// into the concat's tensor (so concatenation moves no data); a conv read
/// through slices (a merged conv) has no tensor: each slice owns one (or is
/// a concat's input) and the conv stores into them (Pieces). Every other
/// output owns a tensor of its channels a pixel, or of whole DRAM bursts
/// where the accesses Plans make then move fewer bursts (padded pixels,
/// CompileOptions::PadPixels), allocated by Place(channels, H, W). A
/// concat laid out input by input (CompileOptions::BlockedConcats) has no
/// tensor either: each input owns one, and InPieces[concat] says where its
/// readers find each input's channels.
llvm::Expected<std::vector<TensorView>>
placeTensors(const ir::Graph &G, const std::vector<LayerPlan> &Plans,
             llvm::function_ref<uint64_t(uint32_t, uint32_t, uint32_t)> Place,
             const isa::HwConfig &Hw, const CompileOptions &Opts,
             std::vector<std::vector<OutPiece>> &Pieces,
             std::vector<std::vector<OutPiece>> &InPieces);

} // namespace snow::compiler

#endif
