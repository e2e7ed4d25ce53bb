//===- snowref.cpp - Run a model with the reference executor --------------===//
//
// snowref MODEL.yaml [--hw PRESET|FILE] [--input x.npy] [--output y.npy]
//                    [--output-float yf.npy] [--quiet]
//
// Loads and quantizes the model for a hardware point, runs it bit-exactly in
// fixed point and again in float, writes the outputs and reports how much the
// quantization cost. Its fixed-point output is what snowsim and the RTL must
// reproduce bit for bit. All the work is in snow_ref; this file only wires
// options to it and prints.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Graph.h"
#include "snow/isa/HwConfig.h"
#include "snow/ref/ErrorStats.h"
#include "snow/ref/Input.h"
#include "snow/ref/Reference.h"
#include "snow/support/Npy.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <cstdio>
#include <fmt/format.h>

using namespace snow;
namespace cl = llvm::cl;

static cl::OptionCategory RefCat("snowref options");
static cl::opt<std::string> ModelPath(cl::Positional, cl::Required, cl::desc("MODEL.yaml"),
                                      cl::cat(RefCat));
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
static cl::opt<bool> Quiet("quiet", cl::desc("Print nothing but errors"), cl::cat(RefCat));

static std::string shapeStr(const ir::Shape &S) { return fmt::format("{}x{}x{}", S.C, S.H, S.W); }

static void printReport(const ir::Graph &G, const isa::HwConfig &Hw, const ref::ModelInput &In,
                        const ref::ErrorStats &S) {
  const ir::Layer &Out = G.output();
  fmt::print("model:   {}\n", G.Name);
  fmt::print("hw:      {}\n", Hw.Name);
  fmt::print("input:   {} Q{}.{} ({})\n", shapeStr(G.Input), 15 - G.InputFrac, G.InputFrac,
             In.Origin);
  fmt::print("output:  {} Q{}.{} (layer '{}')\n", shapeStr(Out.Out), 15 - Out.OutFrac, Out.OutFrac,
             Out.Name);
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
}

static llvm::Error run() {
  llvm::Expected<isa::HwConfig> Hw = isa::loadHwConfig(HwName);
  if (!Hw)
    return Hw.takeError();
  llvm::Expected<ir::Graph> G = ir::loadModel(ModelPath);
  if (!G)
    return G.takeError();
  ir::quantize(*G, int(Hw->ActFracBits));
  if (llvm::Error E = ref::verifyGraph(*G))
    return E;
  if (Hw->AccBits < 1 || Hw->AccBits > 64)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "hardware '%s': acc_bits %u is outside 1..64", Hw->Name.c_str(),
                                   Hw->AccBits);

  ref::ModelInput In;
  if (InputPath.empty()) {
    In = ref::defaultModelInput(*G);
  } else {
    llvm::Expected<ref::ModelInput> Read = ref::readModelInput(*G, InputPath);
    if (!Read)
      return Read.takeError();
    In = std::move(*Read);
  }

  const std::vector<int16_t> Fixed = ref::runFixed(*G, In.Fixed, Hw->AccBits);
  const std::vector<float> Float = ref::runFloat(*G, In.Float);
  const ref::ErrorStats Stats = ref::compareToFloat(Fixed, G->output().OutFrac, Float);

  const ir::Shape &OutShape = G->output().Out;
  if (!OutputPath.empty()) {
    NpyArray A;
    A.Type = NpyArray::DType::I16;
    A.Shape = {OutShape.C, OutShape.H, OutShape.W};
    A.I16 = Fixed;
    if (llvm::Error E = writeNpy(OutputPath, A))
      return E;
  }
  if (!OutputFloatPath.empty()) {
    NpyArray A;
    A.Type = NpyArray::DType::F32;
    A.Shape = {OutShape.C, OutShape.H, OutShape.W};
    A.F32 = Float;
    if (llvm::Error E = writeNpy(OutputFloatPath, A))
      return E;
  }
  if (!Quiet)
    printReport(*G, *Hw, In, Stats);
  return llvm::Error::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(RefCat);
  cl::ParseCommandLineOptions(argc, argv, "snowref: run a model with the reference executor\n");
  if (llvm::Error E = run()) {
    std::fflush(stdout);
    llvm::errs() << "snowref: error: " << llvm::toString(std::move(E)) << "\n";
    return 1;
  }
  return 0;
}
