//===- Program.h - The prog.bin container ---------------------------*- C++ -*-===//
//
// prog.bin is what snowc writes and snowsim / snowrtl run. It is versioned and
// self-describing: magic, format version, the hardware configuration it was
// compiled for (canonical YAML text), the code, the constant DRAM image
// (quantized weights and biases), the memory map of the input and output
// tensors and per-layer metadata, followed by a CRC-32 of everything before it.
// The byte layout is specified in docs/program-format.md.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_ISA_PROGRAM_H
#define SNOW_ISA_PROGRAM_H

#include "snow/isa/HwConfig.h"
#include "snow/isa/Word.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace snow::isa {

constexpr char ProgMagic[8] = {'S', 'N', 'O', 'W', 'P', 'R', 'O', 'G'};
constexpr uint32_t ProgVersion = 1;

/// A tensor in DRAM. Activations are stored HWC (channel-minor) as int16 in
/// Q(15-FracBits).FracBits; .npy files use CHW and are converted at the edge.
struct TensorInfo {
  std::string Name;
  uint64_t Addr = 0; ///< Byte address in DRAM.
  uint32_t C = 0, H = 0, W = 0;
  uint32_t FracBits = 8;
  uint64_t bytes() const { return uint64_t(C) * H * W * 2; }
  bool operator==(const TensorInfo &) const = default;
};

/// LayerInfo::Type of a softmax that runs on the host after the program.
constexpr const char *HostSoftmaxType = "host-softmax";

/// Whether a layer of this type only copies channels: a selection (a 1x1
/// conv of 0/1 weights) that the ONNX importer or canonicalize() builds for
/// channels moved without a conv to take them, or a YAML `shuffle` or
/// `slice` computed as one (ir::makeSelection). Its MACs are the array's
/// time, not the network's work: it has no useful MACs (LayerInfo::Macs 0),
/// so whole-network utilization, G-ops/s and G-ops/J count the network's
/// MACs whichever front end moved its channels (docs/stats-json.md).
inline bool isChannelCopyType(std::string_view Type) {
  return Type == "select" || Type == "shuffle" || Type == "slice";
}

struct LayerInfo {
  std::string Name;
  std::string Type; ///< "conv", "maxpool", ...
  /// Useful MACs (the standard count, padding taps included; 0 for a channel
  /// copy, isChannelCopyType).
  uint64_t Macs = 0;
  uint32_t OutC = 0, OutH = 0, OutW = 0;
  bool operator==(const LayerInfo &) const = default;
};

struct Program {
  HwConfig Hw;
  std::string ModelName;
  std::vector<Word128> Code;
  uint64_t DataAddr = 0;     ///< Where Data is placed in DRAM.
  std::vector<uint8_t> Data; ///< Constant DRAM image (weights, biases).
  /// The image's size when it was read with ProgramData::SizeOnly (Data is
  /// then empty); 0 otherwise.
  uint64_t SkippedDataBytes = 0;
  TensorInfo Input;
  TensorInfo Output;
  std::vector<LayerInfo> Layers; ///< Indexed by the MARK immediate.
  /// Frames one run computes (snowc --batch): Input and Output describe one
  /// frame, and DRAM holds Batch of them one after another from their
  /// addresses (frame f at Addr + f * bytes()). Layer MACs are the batch's.
  uint32_t Batch = 1;
  bool operator==(const Program &) const = default;

  /// Bytes of the constant image, whether or not they were read.
  uint64_t dataBytes() const { return Data.empty() ? SkippedDataBytes : Data.size(); }
};

/// What a reader keeps of the constant image. A timing-only simulation never
/// looks at a weight's value, and copying ResNet-50's 54 MB image would take
/// a third of its run; the checksum still covers every byte.
enum class ProgramData { Read, SizeOnly };

std::vector<uint8_t> serialize(const Program &P);
/// Parses and checks magic, version, section bounds, CRC and the embedded
/// hardware config. Errors are prefixed with Name.
llvm::Expected<Program> deserialize(llvm::ArrayRef<uint8_t> Bytes, const std::string &Name,
                                    ProgramData What = ProgramData::Read);

/// Writes atomically (temporary file + rename), so a failure leaves no partial file.
llvm::Error writeProgram(const Program &P, const std::string &Path);
/// Writes bytes [Begin, End) of a program's constant image (P.dataBytes()
/// bytes) to Out, every one of them: the compiler packs weights a window at a
/// time straight into the output rather than into a copy of the image.
using ImageFill = std::function<void(uint64_t Begin, uint64_t End, uint8_t *Out)>;
/// writeProgram for a program whose image is not held (P.Data empty,
/// P.SkippedDataBytes its size): Fill writes it.
llvm::Error writeProgram(const Program &P, const std::string &Path, const ImageFill &Fill);
llvm::Expected<Program> readProgram(const std::string &Path, ProgramData What = ProgramData::Read);

} // namespace snow::isa

#endif
