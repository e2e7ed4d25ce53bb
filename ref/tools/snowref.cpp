//===- snowref.cpp - Run a model with the reference executor --------------===//
//
// snowref MODEL.yaml [--hw PRESET|FILE] [--input x.npy] [--output y.npy]
//                    [--output-float yf.npy] [--uniform-format] [--layers] [--quiet]
// snowref MODEL.onnx [--const NAME=FILE ...] [same options]   (docs/onnx.md)
//
// Loads, canonicalizes and quantizes the model for a hardware point (per-layer
// formats from calibration, as snowc chooses them, or with --uniform-format
// the hardware's one format everywhere), runs it bit-exactly in fixed point
// and again in float, writes the outputs and reports what the quantization
// cost: the error of the output, each layer's format, saturation and error,
// and for classifiers the classes the host's softmax would report. Its
// fixed-point output is what snowsim and the RTL must reproduce bit for bit.
// All the work is in snow_ref and snow_ir; this file only wires options to
// them and prints.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Calibrate.h"
#include "snow/ir/FloatEval.h"
#include "snow/ir/Graph.h"
#include "snow/ir/Onnx.h"
#include "snow/isa/HwConfig.h"
#include "snow/ref/ErrorStats.h"
#include "snow/ref/Input.h"
#include "snow/ref/Reference.h"
#include "snow/ref/Softmax.h"
#include "snow/support/CommandLine.h"
#include "snow/support/FileIO.h"
#include "snow/support/Npy.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>

using namespace snow;
namespace cl = llvm::cl;

static cl::OptionCategory RefCat("snowref options");
static cl::opt<std::string> ModelPath(cl::Positional, cl::Required,
                                      cl::desc("MODEL.yaml or MODEL.onnx"), cl::cat(RefCat));
static cl::opt<std::string> HwName("hw", cl::init("zc706"),
                                   cl::desc("Hardware preset name or YAML file"),
                                   cl::value_desc("PRESET|FILE"), cl::cat(RefCat));
static cl::opt<std::string>
    InputPath("input",
              cl::desc("Input tensor, CHW: float32 (quantized) or int16 (raw fixed "
                       "point); default: the seeded default input"),
              cl::value_desc("x.npy"), cl::cat(RefCat));
static cl::opt<std::string> OutputPath("output",
                                       cl::desc("Write the fixed-point output (int16, CHW)"),
                                       cl::value_desc("y.npy"), cl::cat(RefCat));
static cl::opt<std::string> OutputFloatPath("output-float",
                                            cl::desc("Write the float output (float32, CHW)"),
                                            cl::value_desc("yf.npy"), cl::cat(RefCat));
static cl::opt<bool> AllLayers("layers",
                               cl::desc("Print the format, saturation and error of every layer "
                                        "(default: only layers above 1% saturation)"),
                               cl::cat(RefCat));
static cl::opt<bool> UniformFormat("uniform-format",
                                   cl::desc("Use the hardware's activation format (act_frac_bits) "
                                            "for every layer instead of calibrated per-layer "
                                            "formats, to see what it costs"),
                                   cl::cat(RefCat));
static cl::opt<std::string>
    CalibrateFrames("calibrate",
                    cl::desc("Choose every tensor's format, the input's too, from these float32 "
                             "frames, shape (N, C, H, W), as snowc --calibrate does"),
                    cl::value_desc("frames.npy"), cl::cat(RefCat));
static cl::opt<bool> Quiet("quiet", cl::desc("Print nothing but errors"), cl::cat(RefCat));
static cl::list<std::string>
    Consts("const",
           cl::desc("ONNX: bind graph input NAME to the constant in FILE (.npy or .pb); "
                    "repeatable"),
           cl::value_desc("NAME=FILE"), cl::cat(RefCat));

/// Layers whose fixed outputs saturate more often than this are listed even
/// without --layers: below it saturation is a curiosity, above it a cause.
static constexpr double SaturationNoteworthy = 0.01;

static std::string shapeStr(const ir::Shape &S) { return fmt::format("{}x{}x{}", S.C, S.H, S.W); }

static std::string formatStr(int Frac) { return fmt::format("Q{}.{}", 15 - Frac, Frac); }

/// What the user wrote, plus what canonicalize() fused into it.
static std::string layerType(const ir::Layer &L) {
  std::string T = L.TypeName.empty() ? ir::kindName(L.Kind) : L.TypeName;
  if (L.HasResidual)
    T += "+add";
  if (L.Relu && L.Kind != ir::LayerKind::Relu)
    T += "+relu";
  return T;
}

struct RunResult {
  ref::ModelInput In;
  std::vector<int16_t> Fixed;
  std::vector<float> Float;
  // Indexed like G.Layers: how each layer's fixed output fares, so a user
  // can see where the error of the output comes from.
  std::vector<uint64_t> SaturatedPerLayer;
  std::vector<double> RelRmsPerLayer;
};

static void printSaturation(const ir::Graph &G, const RunResult &R) {
  size_t Worst = 0, Above = 0;
  auto Fraction = [&](size_t I) {
    const uint64_t N = G.Layers[I].Out.elems();
    return N ? double(R.SaturatedPerLayer[I]) / double(N) : 0.0;
  };
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    if (Fraction(I) > Fraction(Worst))
      Worst = I;
    Above += Fraction(I) > SaturationNoteworthy;
  }
  size_t WorstRms = 0;
  for (size_t I = 0; I < G.Layers.size(); ++I)
    if (!(R.RelRmsPerLayer[I] <= R.RelRmsPerLayer[WorstRms]))
      WorstRms = I;
  auto RelStr = [](double Rel) {
    return std::isinf(Rel) ? std::string("inf") : fmt::format("{:.4f}%", 100 * Rel);
  };
  fmt::print("per layer, fixed vs float: saturated outputs (32767 or -32768), relative rms "
             "error\n");
  // The summary comes first, so a long --layers table cannot bury it.
  if (R.SaturatedPerLayer[Worst] == 0)
    fmt::print("  worst saturation:          none in any layer\n");
  else
    fmt::print("  worst saturation:          {:.4f}% in '{}'\n", 100 * Fraction(Worst),
               G.Layers[Worst].Name);
  fmt::print("  worst relative rms error:  {} in '{}'\n", RelStr(R.RelRmsPerLayer[WorstRms]),
             G.Layers[WorstRms].Name);
  if (!AllLayers && Above == 0) {
    fmt::print("  no layer above {:g}% saturation; --layers lists all\n",
               100 * SaturationNoteworthy);
    return;
  }
  if (!AllLayers)
    fmt::print("  {} of {} layers above {:g}% (--layers lists all):\n", Above, G.Layers.size(),
               100 * SaturationNoteworthy);
  size_t NameW = 5, TypeW = 4;
  for (const ir::Layer &L : G.Layers) {
    NameW = std::max(NameW, L.Name.size());
    TypeW = std::max(TypeW, layerType(L).size());
  }
  fmt::print("  {:<{}}  {:<{}}  {:<14}  {:<7}  {:>12}  {:>9}  {:>12}\n", "layer", NameW, "type",
             TypeW, "output", "format", "saturated", "fraction", "rel rms err");
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    if (!AllLayers && Fraction(I) <= SaturationNoteworthy)
      continue;
    const ir::Layer &L = G.Layers[I];
    fmt::print("  {:<{}}  {:<{}}  {:<14}  {:<7}  {:>12}  {:>8.4f}%  {:>12}\n", L.Name, NameW,
               layerType(L), TypeW, shapeStr(L.Out), formatStr(L.OutFrac), R.SaturatedPerLayer[I],
               100 * Fraction(I), RelStr(R.RelRmsPerLayer[I]));
  }
}

/// The host's view of a classifier: softmax of the dequantized fixed logits,
/// and of the float path's logits for comparison.
static void printClasses(const ir::Graph &G, const RunResult &R) {
  const auto Fixed = ref::topClasses(ref::softmax(ref::dequantize(R.Fixed, G.output().OutFrac)), 5);
  const auto Float =
      ref::topClasses(ref::softmax(std::vector<double>(R.Float.begin(), R.Float.end())), 1);
  fmt::print("softmax runs on the host (float, on the dequantized output); top-5:\n");
  for (size_t I = 0; I < Fixed.size(); ++I)
    fmt::print("  {}. class {:>5}  p = {:.6f}\n", I + 1, Fixed[I].Index, Fixed[I].Probability);
  if (!Float.empty())
    fmt::print("float path top-1: class {} p = {:.6f}{}\n", Float[0].Index, Float[0].Probability,
               Fixed.empty() || Fixed[0].Index == Float[0].Index ? " (same class)"
                                                                 : " (DIFFERENT class)");
}

/// One line on stderr, --quiet or not, when some output sat at a rail: the
/// formats were chosen for other data, and the answer is likely wrong.
static void reportSaturation(const ir::Graph &G, const RunResult &R) {
  std::vector<double> Fractions;
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const uint64_t N = G.Layers[I].Out.elems();
    Fractions.push_back(N ? double(R.SaturatedPerLayer[I]) / double(N) : 0.0);
  }
  snow::warnSaturation(
      "snowref", Fractions, [&](size_t I) { return G.Layers[I].Name; }, !CalibrateFrames.empty());
}

static void printReport(const ir::Graph &G, const isa::HwConfig &Hw, const RunResult &R) {
  const ir::Layer &Out = G.output();
  const ref::ErrorStats S = ref::compareToFloat(R.Fixed, Out.OutFrac, R.Float);
  fmt::print("model:   {}\n", G.Name);
  fmt::print("hw:      {}\n", Hw.Name);
  fmt::print("input:   {} Q{}.{} ({})\n", shapeStr(G.Input), 15 - G.InputFrac, G.InputFrac,
             R.In.Origin);
  fmt::print("output:  {} Q{}.{} (layer '{}')\n", shapeStr(Out.Out), 15 - Out.OutFrac, Out.OutFrac,
             Out.Name);
  if (UniformFormat) {
    fmt::print("formats: {} for every layer (--uniform-format)\n", formatStr(G.InputFrac));
  } else {
    int Lo = G.InputFrac, Hi = G.InputFrac;
    for (const ir::Layer &L : G.Layers) {
      Lo = std::min(Lo, L.OutFrac);
      Hi = std::max(Hi, L.OutFrac);
    }
    fmt::print("formats: per layer, {} to {}, calibrated on {} (--layers lists "
               "them; --uniform-format: {} everywhere)\n",
               formatStr(Hi), formatStr(Lo),
               CalibrateFrames.empty() ? std::string("the default input")
                                       : "the frames of '" + CalibrateFrames + "'",
               formatStr(int(Hw.ActFracBits)));
  }
  fmt::print("MACs:    {} ({:.3f} G)\n", G.macs(), double(G.macs()) * 1e-9);
  fmt::print("quantization error of the output vs float ({} values):\n", S.Count);
  fmt::print("  max abs error:  {:.6g}\n", S.MaxAbsError);
  fmt::print("  rms error:      {:.6g}\n", S.RmsError);
  const double Rel = S.relativeRms();
  if (std::isinf(Rel))
    fmt::print("  relative rms:   inf (float output is all zero)\n");
  else
    fmt::print("  relative rms:   {:.4f}%\n", 100.0 * Rel);
  fmt::print("  saturated:      {:.4f}%\n", 100.0 * S.saturatedFraction());
  fmt::print("  zero:           {:.4f}%\n", 100.0 * S.zeroFraction());
  printSaturation(G, R);
  if (G.HostSoftmax && G.SoftmaxCount == 0) // A classifier's scores.
    printClasses(G, R);
}

static llvm::Error run() {
  llvm::Expected<isa::HwConfig> Hw = isa::loadHwConfig(HwName);
  if (!Hw)
    return Hw.takeError();
  ir::OnnxImportOptions OnnxOpts;
  for (const std::string &C : Consts)
    if (llvm::Error E = ir::addOnnxConst(C, OnnxOpts))
      return E;
  llvm::Expected<ir::Graph> G = ir::loadAnyModel(ModelPath, OnnxOpts);
  if (!G)
    return G.takeError();
  if (Hw->AccBits < 1 || Hw->AccBits > 64)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "hardware '%s': acc_bits %u is outside 1..64", Hw->Name.c_str(),
                                   Hw->AccBits);
  if (llvm::Error E = ir::canonicalize(*G, {/*OneFormat=*/UniformFormat}))
    return E;
  // Formats are calibrated on the default input whatever --input says: snowc
  // sees no input and must choose the same formats, or snowsim's output would
  // not match this one. The calibration run's float outputs are kept, since
  // without --input they are exactly the float path of the report.
  const int ActFrac = int(Hw->ActFracBits);
  std::vector<std::vector<float>> DefaultFloatLayers;
  if (UniformFormat && !CalibrateFrames.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--uniform-format and --calibrate contradict each other");
  if (UniformFormat) {
    ir::quantize(*G, ActFrac);
  } else if (!CalibrateFrames.empty()) {
    auto Frames = ir::readCalibrationFrames(*G, CalibrateFrames);
    if (!Frames)
      return Frames.takeError();
    llvm::Expected<ir::ActFormats> F = ir::calibrateOnFrames(*G, ActFrac, *Frames);
    if (!F)
      return F.takeError();
    if (llvm::Error E = ir::quantize(*G, *F))
      return E;
  } else {
    llvm::Expected<ir::ActFormats> F =
        ir::calibrate(*G, ActFrac, ir::defaultInput(*G), &DefaultFloatLayers);
    if (!F)
      return F.takeError();
    if (llvm::Error E = ir::quantize(*G, *F))
      return E;
  }
  if (llvm::Error E = ref::verifyGraph(*G))
    return E;

  RunResult R;
  if (InputPath.empty()) {
    R.In = ref::defaultModelInput(*G);
  } else {
    llvm::Expected<ref::ModelInput> Read = ref::readModelInput(*G, InputPath);
    if (!Read)
      return Read.takeError();
    R.In = std::move(*Read);
  }

  {
    std::vector<std::vector<int16_t>> FixedLayers;
    std::vector<std::vector<float>> FloatLayers;
    R.Fixed = ref::runFixed(*G, R.In.Fixed, Hw->AccBits, &FixedLayers);
    if (InputPath.empty() && !DefaultFloatLayers.empty()) {
      FloatLayers = std::move(DefaultFloatLayers);
      R.Float = FloatLayers.back();
    } else {
      R.Float = ir::runFloat(*G, R.In.Float, &FloatLayers);
    }
    for (size_t I = 0; I < G->Layers.size(); ++I) {
      R.SaturatedPerLayer.push_back(ref::countSaturated(FixedLayers[I]));
      R.RelRmsPerLayer.push_back(
          ref::compareToFloat(FixedLayers[I], G->Layers[I].OutFrac, FloatLayers[I]).relativeRms());
    }
  }

  // All outputs of a run are written together or not at all.
  const ir::Shape &OutShape = G->output().Out;
  const std::vector<uint64_t> Shape = {OutShape.C, OutShape.H, OutShape.W};
  std::vector<std::pair<std::string, std::string>> Files;
  auto Add = [&](const std::string &Path, NpyArray A) -> llvm::Error {
    A.Shape = Shape;
    llvm::Expected<std::string> Bytes = encodeNpy(A, Path);
    if (!Bytes)
      return Bytes.takeError();
    Files.emplace_back(Path, std::move(*Bytes));
    return llvm::Error::success();
  };
  if (!OutputPath.empty()) {
    NpyArray A;
    A.Type = NpyArray::DType::I16;
    A.I16 = R.Fixed;
    if (llvm::Error E = Add(OutputPath, std::move(A)))
      return E;
  }
  if (!OutputFloatPath.empty()) {
    NpyArray A;
    A.Type = NpyArray::DType::F32;
    A.F32 = R.Float;
    if (llvm::Error E = Add(OutputFloatPath, std::move(A)))
      return E;
  }
  if (llvm::Error E = writeFilesAtomic(Files))
    return E;
  if (!Quiet)
    printReport(*G, *Hw, R);
  reportSaturation(*G, R);
  return llvm::Error::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  if (!snow::parseToolCommandLine(argc, argv, "snowref",
                                  "snowref: run a model with the reference executor\n", RefCat))
    return 1;
  if (llvm::Error E = run()) {
    std::fflush(stdout);
    return snow::toolError("snowref", llvm::toString(std::move(E)));
  }
  return 0;
}
