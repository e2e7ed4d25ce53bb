//===- Conformance.cpp - ONNX's backend tests through snowc and snowsim ---===//
//
// Per test and data set, the same steps as the command line
//   snowc model.onnx --const W=input_1.pb ... -o prog.bin
//   snowsim prog.bin --input input_0.npy --output-float y.npy
// run in process (a thousand tests would otherwise spend their time
// starting processes), with two differences a test needs: the formats are
// calibrated on the test's own input (snowc calibrates on the default input,
// which knows nothing of the test's value range), and the output is also
// checked bit for bit against the reference executor.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "ErrorBound.h"

#include "snow/compiler/Compiler.h"
#include "snow/ir/Calibrate.h"
#include "snow/ir/FloatEval.h"
#include "snow/ir/Onnx.h"
#include "snow/ref/Reference.h"
#include "snow/ref/Softmax.h"
#include "snow/sim/Simulator.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>

using namespace snow;
using namespace snow::onnxtest;
using Status = CaseResult::Status;

namespace {

/// ONNX's expected values are float32 results of float32 or float64
/// arithmetic; this relative slack covers their rounding, not ours.
constexpr double FloatSlack = 1e-5;

const char *const ModelFile = "model.onnx";

std::vector<std::string> listDir(const std::string &Dir, llvm::StringRef Prefix) {
  std::vector<std::string> Names;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name.startswith(Prefix))
      Names.push_back(Name.str());
  }
  std::sort(Names.begin(), Names.end());
  return Names;
}

/// Importer messages start with the file name, which is the same in every row.
std::string reason(llvm::Error E) {
  std::string Msg = llvm::toString(std::move(E));
  std::string Prefix = std::string(ModelFile) + ": ";
  return llvm::StringRef(Msg).startswith(Prefix) ? Msg.substr(Prefix.size()) : Msg;
}

struct DataSet {
  ir::OnnxTensor Input, Expected;
  ir::OnnxImportOptions Consts;
  /// The first file that could not be read. The model is imported anyway,
  /// since its own refusal (an unsupported type, a second output) is the
  /// better reason.
  std::string Problem;
};

/// Reads input_*.pb (the first feeds the data input, the others are bound
/// to the remaining graph inputs) and the single output_0.pb.
DataSet readDataSet(const std::string &Dir, const std::vector<std::string> &Names) {
  DataSet S;
  auto Note = [&](const std::string &Msg) {
    if (S.Problem.empty())
      S.Problem = Msg;
  };
  auto Read = [&](const std::string &File) -> std::optional<ir::OnnxTensor> {
    llvm::Expected<ir::OnnxTensor> T = ir::readOnnxTensor(Dir + "/" + File);
    if (T)
      return std::move(*T);
    // Name the file relative to the test, as every row does.
    std::string Msg = llvm::toString(T.takeError());
    llvm::StringRef Rel(Msg);
    Rel.consume_front(llvm::sys::path::parent_path(Dir).str() + "/");
    Note(Rel.str());
    return std::nullopt;
  };
  std::vector<std::string> Ins = listDir(Dir, "input_"), Outs = listDir(Dir, "output_");
  if (Ins.size() != Names.size())
    Note(fmt::format("the data set has {} inputs for the {} graph inputs without a value",
                     Ins.size(), Names.size()));
  if (Outs.size() != 1)
    Note(fmt::format("the data set has {} outputs; one is supported", Outs.size()));
  for (size_t I = 0; I < Ins.size() && I < Names.size(); ++I) {
    // input_10.pb sorts before input_2.pb; the number is the position.
    std::optional<ir::OnnxTensor> T = Read(fmt::format("input_{}.pb", I));
    if (T && I == 0)
      S.Input = std::move(*T);
    else if (T)
      S.Consts.Consts[Names[I]] = std::move(*T);
  }
  if (!Outs.empty())
    if (std::optional<ir::OnnxTensor> T = Read(Outs[0]))
      S.Expected = std::move(*T);
  return S;
}

/// One data set through the pipeline, merged into R (which starts as a pass).
void runDataSet(const std::string &Bytes, const std::string &Dir,
                const std::vector<std::string> &Names, const isa::HwConfig &Hw, CaseResult &R) {
  auto Unsupported = [&](const std::string &Why) {
    R.St = Status::Unsupported;
    R.Reason = Why;
  };
  auto Fail = [&](const std::string &Why) {
    R.St = Status::Fail;
    R.Reason = Why;
  };
  DataSet S = readDataSet(Dir, Names);
  llvm::Expected<ir::OnnxModel> M = ir::parseOnnx(Bytes, ModelFile, S.Consts);
  if (!M) {
    // An input the runner could not bind (an unsupported element type) says
    // more than the importer's "have no value".
    std::string Why = reason(M.takeError());
    return Unsupported(
        !S.Problem.empty() && Why.find("have no value") != std::string::npos ? S.Problem : Why);
  }
  if (!S.Problem.empty())
    return Fail(S.Problem);
  ir::Graph &G = M->G;
  const ir::OnnxTensor &X = S.Input;
  if (X.Type != ir::OnnxTensor::ElemType::Float)
    return Unsupported("the test's input is not float32");
  const uint64_t FrameElems = G.Input.elems();
  const uint64_t Frames = X.Dims.size() >= 2 ? uint64_t(X.Dims[0]) : 1;
  if (Frames == 0 || X.elems() != Frames * FrameElems)
    return Fail(fmt::format("the test's input has {} values, not {} frames of {}", X.elems(),
                            Frames, FrameElems));
  // The graph input keeps the hardware's format (docs/fixed-point.md), so
  // its range is fixed; a test beyond it cannot be represented.
  const double InRange = std::ldexp(32767.5, -int(Hw.ActFracBits));
  for (float V : X.Floats)
    if (!(std::fabs(V) < InRange))
      return Unsupported(fmt::format("input value {} is outside the range of the input format "
                                     "Q{}.{} (about +-{})",
                                     V, 15 - Hw.ActFracBits, Hw.ActFracBits, InRange));
  if (llvm::Error E = ir::canonicalize(G))
    return Unsupported(reason(std::move(E)));

  auto FrameOf = [&](uint64_t F) {
    return std::vector<float>(X.Floats.begin() + long(F * FrameElems),
                              X.Floats.begin() + long((F + 1) * FrameElems));
  };
  // Calibrate on the test's frames: chooseFormats needs each layer's largest
  // magnitude, so the frames' outputs can simply be concatenated.
  if (llvm::Error E = ir::checkFloatGraph(G, FrameElems))
    return Unsupported(reason(std::move(E)));
  std::vector<std::vector<std::vector<float>>> FloatLayers(Frames);
  std::vector<std::vector<float>> AllFrames(G.Layers.size());
  std::vector<float> PreMax(G.Layers.size(), 0.0f), FramePre;
  for (uint64_t F = 0; F < Frames; ++F) {
    ir::runFloat(G, FrameOf(F), &FloatLayers[F], &FramePre);
    for (size_t L = 0; L < G.Layers.size(); ++L) {
      AllFrames[L].insert(AllFrames[L].end(), FloatLayers[F][L].begin(), FloatLayers[F][L].end());
      PreMax[L] = std::max(PreMax[L], FramePre[L]);
    }
  }
  llvm::Expected<ir::ActFormats> Formats =
      ir::chooseFormats(G, int(Hw.ActFracBits), AllFrames, PreMax);
  if (!Formats)
    return Unsupported(reason(Formats.takeError()));
  if (llvm::Error E = ir::quantize(G, *Formats))
    return Unsupported(reason(std::move(E)));
  if (llvm::Error E = ref::verifyGraph(G))
    return Fail("reference executor: " + reason(std::move(E)));
  llvm::Expected<isa::Program> Prog = compiler::compile(G, Hw);
  if (!Prog)
    return Unsupported("compile: " + reason(Prog.takeError()));

  const ir::OnnxTensor &Want = S.Expected;
  const ir::Layer &Out = G.output();
  if (Want.Type != ir::OnnxTensor::ElemType::Float || Want.Dims != M->OutputDims ||
      Want.elems() != Frames * Out.Out.elems())
    return Fail(fmt::format("the expected output has shape {} while the model gives [{}] per "
                            "frame for {} frames",
                            fmt::join(Want.Dims, ", "), fmt::join(M->OutputDims, ", "), Frames));
  R.Frames += Frames;
  for (uint64_t F = 0; F < Frames; ++F) {
    std::vector<int16_t> In;
    for (float V : FrameOf(F))
      In.push_back(ir::toFixed(V, G.InputFrac));
    auto Sim = sim::Simulator::create(*Prog);
    if (!Sim)
      return Fail("simulator: " + reason(Sim.takeError()));
    if (llvm::Error E = (*Sim)->setInput(In))
      return Fail("simulator: " + reason(std::move(E)));
    if (llvm::Expected<sim::SimStats> St = (*Sim)->run(); !St)
      return Fail("simulator: " + reason(St.takeError()));
    const std::vector<int16_t> Got = (*Sim)->output();
    std::vector<std::vector<int16_t>> FixedLayers;
    if (Got != ref::runFixed(G, In, Hw.AccBits, &FixedLayers))
      return Fail("the simulator's output differs from the reference executor's");
    std::vector<double> Value = ref::dequantize(Got, Out.OutFrac);
    if (G.HostSoftmax)
      Value = ref::softmax(Value, G.SoftmaxCount, G.SoftmaxInner);
    const double Bound = outputErrorBound(G, layerErrorBounds(G, FrameOf(F), FloatLayers[F]));
    R.Bound = std::max(R.Bound, Bound);
    for (size_t I = 0; I < Value.size(); ++I) {
      const double Expect = Want.Floats[F * Value.size() + I];
      const double Err = std::fabs(Value[I] - Expect);
      R.MaxError = std::max(R.MaxError, Err);
      ++R.Values;
      if (Err > Bound + FloatSlack * std::max(1.0, std::fabs(Expect))) {
        std::string Saturated;
        for (size_t L = 0; L < FixedLayers.size(); ++L)
          if (std::any_of(FixedLayers[L].begin(), FixedLayers[L].end(),
                          [](int16_t V) { return V == 32767 || V == -32768; }))
            Saturated = fmt::format(" (layer '{}' saturates)", G.Layers[L].Name);
        return Fail(fmt::format("frame {} value {}: got {:.6g}, expected {:.6g}, error {:.3g} "
                                "above the bound {:.3g}{}",
                                F, I, Value[I], Expect, Err, Bound, Saturated));
      }
    }
  }
}

} // namespace

const char *snow::onnxtest::statusName(Status S) {
  switch (S) {
  case Status::Pass:
    return "pass";
  case Status::Fail:
    return "FAIL";
  case Status::Unsupported:
    return "unsupported";
  }
  return "?";
}

CaseResult snow::onnxtest::runCase(const std::string &DataDir, const std::string &Suite,
                                   const std::string &Name, const isa::HwConfig &Hw) {
  CaseResult R;
  R.Suite = Suite;
  R.Name = Name;
  const std::string Dir = DataDir + "/" + Suite + "/" + Name;
  if (!llvm::sys::fs::exists(Dir + "/" + ModelFile)) {
    R.Reason = llvm::sys::fs::exists(Dir + "/data.json")
                   ? "the model is not shipped (data.json names a download from ONNX's model zoo)"
                   : "the directory has no model.onnx";
    return R;
  }
  auto Buf = llvm::MemoryBuffer::getFile(Dir + "/" + ModelFile, /*IsText=*/false);
  if (!Buf) {
    R.St = Status::Fail;
    R.Reason = "cannot read model.onnx: " + Buf.getError().message();
    return R;
  }
  const std::string Bytes = (*Buf)->getBuffer().str();
  llvm::Expected<std::vector<std::string>> Names = ir::onnxRuntimeInputs(Bytes, ModelFile);
  if (!Names) {
    R.St = Status::Fail;
    R.Reason = reason(Names.takeError());
    return R;
  }
  std::vector<std::string> Sets = listDir(Dir, "test_data_set_");
  if (Sets.empty()) {
    R.St = Status::Fail;
    R.Reason = "no test_data_set_* directory";
    return R;
  }
  R.St = Status::Pass;
  for (const std::string &Set : Sets) {
    runDataSet(Bytes, Dir + "/" + Set, *Names, Hw, R);
    if (R.St != Status::Pass)
      break;
  }
  return R;
}

const std::vector<std::string> &snow::onnxtest::conformanceSuites() {
  static const std::vector<std::string> Suites = {"node", "pytorch-converted", "pytorch-operator",
                                                  "simple", "real"};
  return Suites;
}

std::vector<CaseResult> snow::onnxtest::runConformance(const std::string &DataDir,
                                                       const isa::HwConfig &Hw) {
  std::vector<CaseResult> Results;
  for (const std::string &Suite : conformanceSuites())
    for (const std::string &Name : listDir(DataDir + "/" + Suite, "test_"))
      Results.push_back(runCase(DataDir, Suite, Name, Hw));
  return Results;
}
