//===- OnnxImport.cpp - ONNX ModelProto -> graph IR: the graph walk --------===//
//
// Reads the model with libonnx's generated protobuf classes, then:
//
// 1. Constants: initializers, --const bindings and Constant nodes. Every
//    graph input without a value is the data input; there must be exactly
//    one, since the accelerator has one input tensor.
// 2. Liveness: only nodes the (single) graph output depends on are imported,
//    so an unused second output of a node (Dropout's mask) costs nothing.
// 3. Nodes in graph order (ONNX requires topological order, which is the
//    IR's order too); each operator's function is in OnnxOps.cpp,
//    OnnxWindows.cpp or OnnxPad.cpp.
// 4. Passes that need the whole graph (OnnxPasses.cpp): a bias added after a
//    conv or fc that feeds nothing else is folded into it (MatMul + Add is an
//    fc); a BatchNormalization that canonicalize() could not fold becomes a
//    depthwise 1x1 conv; a concat whose readers use disjoint parts of it is
//    split into one per reader (ConcatSplit.cpp); concats that extend an
//    earlier one nest in it; a graph with nothing to compute gets a copy
//    layer.
//
// The result is the same as-written IR the YAML front end produces (layer
// names from node names, TypeName as in the YAML), so canonicalize() and all
// later stages are shared.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"
#include "snow/support/FileIO.h"
#include "snow/support/Limits.h"
#include "snow/support/Text.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <climits>
#include <fmt/format.h>
#include <google/protobuf/text_format.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

OnnxImporter::OnnxImporter(const onnx::ModelProto &M, std::string File,
                           const OnnxImportOptions &Opts)
    : Model(M), GP(M.graph()), File(std::move(File)), Opts(Opts), G(Result.G) {}

//===-- The graph --------------------------------------------------------===//

void OnnxImporter::readOpset() {
  // A model of other domains only has no default opset; its nodes are
  // refused one by one, by domain.
  for (const onnx::OperatorSetIdProto &O : Model.opset_import())
    if (O.domain().empty() || O.domain() == "ai.onnx")
      Opset = O.version();
  // An opset from the future may change what an operator means; one that
  // does not exist is a damaged file. Either way the rules here are not its.
  if (Opset < 0 || Opset > OnnxMaxOpset)
    throw OnnxError{fmt::format("{}: opset_import: default-domain opset version {} is not known "
                                "(supported: 1..{}, ONNX 1.17's newest)",
                                File, Opset, OnnxMaxOpset)};
}

void OnnxImporter::checkSingleAssignment() const {
  // ONNX graphs are in SSA form: a name defined twice would make whichever
  // definition was read last win, silently.
  std::set<std::string> Defined;
  for (const onnx::ValueInfoProto &I : GP.input())
    Defined.insert(I.name());
  for (const onnx::TensorProto &T : GP.initializer())
    Defined.insert(T.name());
  for (const onnx::NodeProto &N : GP.node())
    for (const std::string &O : N.output())
      if (!O.empty() && !Defined.insert(O).second)
        throw OnnxError{fmt::format("{}: node '{}' ({}): output '{}' is already defined (by a "
                                    "graph input, an initializer or another node); ONNX names "
                                    "each value once",
                                    File, snow::escapeUntrusted(N.name(), 80), N.op_type(),
                                    snow::escapeUntrusted(O, 80))};
}

void OnnxImporter::readConstants() {
  std::set<std::string> GraphInputs;
  for (const onnx::ValueInfoProto &I : GP.input())
    GraphInputs.insert(I.name());
  for (const onnx::TensorProto &T : GP.initializer())
    Consts[T.name()] = tensorFromProto(T, fmt::format("{}: initializer '{}'", File, T.name()));
  for (const auto &[Name, T] : Opts.Consts) {
    if (!GraphInputs.count(Name))
      throw OnnxError{fmt::format("{}: --const '{}' names no graph input (inputs: {})", File, Name,
                                  fmt::join(GraphInputs, ", "))};
    Consts[Name] = T;
    Consts[Name].Name = Name;
  }
  if (GP.sparse_initializer_size())
    throw OnnxError{File + ": sparse initializers are not supported"};
  for (auto &[Name, T] : Consts) {
    OnnxValue V;
    V.IsConst = true;
    V.Dims = T.Dims;
    V.Const = &T;
    Values[Name] = std::move(V);
  }
}

void OnnxImporter::checkConstShapes() const {
  // A value whose shape differs from the declared one would only fail
  // later, in terms of the operator that reads it.
  for (const auto &[Name, T] : Opts.Consts)
    for (const onnx::ValueInfoProto &I : GP.input()) {
      if (I.name() != Name || !I.type().tensor_type().has_shape())
        continue;
      const onnx::TensorShapeProto &S = I.type().tensor_type().shape();
      bool Same = S.dim_size() == int(T.Dims.size());
      for (int D = 0; Same && D < S.dim_size(); ++D)
        Same = !S.dim(D).has_dim_value() || S.dim(D).dim_value() == T.Dims[size_t(D)];
      if (!Same)
        throw OnnxError{fmt::format("{}: --const '{}': the value has shape {}, but the graph "
                                    "input declares {} dimensions{}",
                                    File, Name, dimsStr(T.Dims), S.dim_size(),
                                    S.dim_size() == int(T.Dims.size()) ? " of other sizes" : "")};
    }
}

std::vector<int64_t> OnnxImporter::runtimeInputDims(const onnx::ValueInfoProto &In) {
  std::string Ctx = fmt::format("{}: graph input '{}'", File, In.name());
  if (!In.type().has_tensor_type())
    throw OnnxError{Ctx + ": only tensor inputs are supported"};
  const onnx::TypeProto::Tensor &TT = In.type().tensor_type();
  if (TT.elem_type() != onnx::TensorProto::FLOAT)
    throw OnnxError{fmt::format(
        "{}: element type '{}' is not supported (the input must be float32)", Ctx,
        onnx::TensorProto_DataType_IsValid(TT.elem_type())
            ? onnx::TensorProto_DataType_Name(onnx::TensorProto_DataType(TT.elem_type()))
            : std::to_string(TT.elem_type()))};
  if (!TT.has_shape())
    throw OnnxError{Ctx + ": the shape is not given"};
  std::vector<int64_t> Dims;
  for (int I = 0; I < TT.shape().dim_size(); ++I) {
    const onnx::TensorShapeProto::Dimension &D = TT.shape().dim(I);
    if (D.has_dim_value() && D.dim_value() >= 1 && D.dim_value() <= OnnxMaxDim) {
      Dims.push_back(D.dim_value());
    } else if (I == 0 && TT.shape().dim_size() >= 2 && !D.has_dim_value()) {
      Dims.push_back(1); // A symbolic batch: the program runs one frame.
      SymbolicBatch = true;
    } else {
      throw OnnxError{fmt::format("{}: dimension {} is {}; it must be a number in 1..{}", Ctx, I,
                                  D.has_dim_value()   ? std::to_string(D.dim_value())
                                  : D.has_dim_param() ? "'" + D.dim_param() + "'"
                                                      : "not given",
                                  OnnxMaxDim)};
    }
  }
  Shape S = frameShape(Dims);
  if (S.C > OnnxMaxDim || S.H > OnnxMaxDim || S.W > OnnxMaxDim)
    throw OnnxError{fmt::format("{}: shape {} is too large for a frame", Ctx, dimsStr(Dims))};
  return Dims;
}

void OnnxImporter::readDataInput() {
  std::vector<const onnx::ValueInfoProto *> Data;
  for (const onnx::ValueInfoProto &I : GP.input())
    if (!Consts.count(I.name()))
      Data.push_back(&I);
  if (Data.empty())
    throw OnnxError{File + ": the graph has no input left to feed at run time (every one has a "
                           "value); the accelerator needs one"};
  // An input the accelerator could never be fed (a sequence, integers) is a
  // more basic reason than their number, so it is reported first.
  std::vector<int64_t> Dims;
  for (const onnx::ValueInfoProto *I : Data)
    Dims = runtimeInputDims(*I);
  checkConstShapes();
  if (Data.size() > 1) {
    std::vector<std::string> Names;
    for (const onnx::ValueInfoProto *I : Data)
      Names.push_back("'" + I->name() + "'");
    throw OnnxError{fmt::format("{}: graph inputs {} have no value, but the accelerator has one "
                                "input; bind all but one with --const NAME=FILE",
                                File, fmt::join(Names, ", "))};
  }
  G.InputName = Data[0]->name();
  G.Input = frameShape(Dims);
  Result.InputDims = Dims;
  Result.Frames = framesOf(Dims);
  OnnxValue V;
  V.Dims = std::move(Dims);
  Values[G.InputName] = std::move(V);
}

std::vector<bool> OnnxImporter::liveNodes() const {
  std::map<std::string, int> Producer;
  for (int I = 0; I < GP.node_size(); ++I)
    for (const std::string &O : GP.node(I).output())
      if (!O.empty())
        Producer[O] = I;
  std::vector<bool> Live(size_t(GP.node_size()), false);
  std::vector<std::string> Work = {OutputName};
  while (!Work.empty()) {
    std::string Name = Work.back();
    Work.pop_back();
    auto It = Producer.find(Name);
    if (It == Producer.end() || Live[size_t(It->second)])
      continue;
    Live[size_t(It->second)] = true;
    for (const std::string &In : GP.node(It->second).input())
      if (!In.empty())
        Work.push_back(In);
  }
  return Live;
}

void OnnxImporter::importNode(const onnx::NodeProto &N) {
  if (!N.domain().empty() && N.domain() != "ai.onnx")
    fail(fmt::format("operator domain '{}' is not supported (only the default ONNX domain)",
                     N.domain()));
  if (Opset == 0)
    fail("the model imports no version of the default operator set (opset_import has no entry "
         "for domain '')");
  const std::string &Op = N.op_type();
  static const char *const Supported[] = {"Conv",
                                          "MaxPool",
                                          "AveragePool",
                                          "GlobalAveragePool",
                                          "Gemm",
                                          "MatMul",
                                          "Add",
                                          "Relu",
                                          "BatchNormalization",
                                          "Concat",
                                          "Flatten",
                                          "Reshape",
                                          "Softmax",
                                          "Identity",
                                          "Dropout",
                                          "Constant",
                                          "Pad",
                                          "ReduceMean",
                                          "Clip",
                                          "Sigmoid",
                                          "HardSigmoid",
                                          "HardSwish",
                                          "Tanh",
                                          "Erf",
                                          "Mul",
                                          "Sub",
                                          "Div",
                                          "Shape",
                                          "Gather",
                                          "Slice",
                                          "Split",
                                          "Transpose",
                                          "Pow",
                                          "Sqrt",
                                          "LayerNormalization"};
  if (!llvm::is_contained(Supported, Op))
    fail(fmt::format("operator '{}' is not supported (supported: {})", Op,
                     fmt::join(Supported, ", ")));
  if (Op != "Split" && (N.output_size() < 1 || N.output(0).empty()))
    fail("the node's first output is unused; only the first output is supported");
  prepareInputs(N);
  importOperator(Op);
  materializeOutputs(N);
}

void OnnxImporter::importOperator(const std::string &Op) {
  bool AllConst = inputCount() > 0;
  for (size_t I = 0; I < inputCount(); ++I)
    AllConst &=
        !inputName(I).empty() && Values.count(inputName(I)) && Values.at(inputName(I)).IsConst;
  if (isLayerNormStep(Op)) // Before ReduceMean, Sub, Add and Div's own rules.
    importLayerNormStep(Op);
  else if (Op == "Conv")
    importConv();
  else if (Op == "MaxPool")
    importPool(/*IsMax=*/true);
  else if (Op == "AveragePool")
    importPool(/*IsMax=*/false);
  else if (Op == "GlobalAveragePool")
    importGlobalAveragePool();
  else if (Op == "ReduceMean")
    importReduceMean();
  else if (Op == "Pad")
    importPad();
  else if (Op == "Gemm")
    importGemm(/*IsMatMul=*/false);
  else if (Op == "MatMul" && inputCount() >= 1 && !input(0).IsConst && input(0).ChannelsLast)
    importChannelsLastMatMul();
  else if (Op == "MatMul")
    importGemm(/*IsMatMul=*/true);
  else if (isGeluStep(Op))
    importGeluStep(Op);
  else if ((Op == "Add" || Op == "Sub" || Op == "Mul" || Op == "Div") && AllConst)
    foldArithmetic(Op);
  else if (Op == "Sub" || Op == "Div")
    importConstAffine(Op);
  else if (Op == "Shape")
    importShape();
  else if (Op == "Gather")
    importGather();
  else if (Op == "Slice")
    importSlice();
  else if (Op == "Split")
    importSplit();
  else if (Op == "Transpose")
    importTranspose();
  else if (Op == "Add")
    importAdd();
  else if (Op == "Relu")
    importRelu();
  else if (Op == "Clip" || Op == "Sigmoid" || Op == "HardSigmoid" || Op == "HardSwish" ||
           Op == "Tanh")
    importActivation(Op);
  else if (Op == "Mul")
    importMul();
  else if (Op == "Pow")
    importPow();
  else if (Op == "BatchNormalization")
    importBatchNorm();
  else if (Op == "Concat")
    importConcat();
  else if (Op == "Flatten")
    importFlatten();
  else if (Op == "Reshape")
    importReshape();
  else if (Op == "Softmax")
    importSoftmax();
  else if (Op == "Identity")
    importIdentity(/*IsDropout=*/false);
  else if (Op == "Dropout")
    importIdentity(/*IsDropout=*/true);
  else if (Op == "Sqrt")
    fail("a square root is supported only as a layer_norm's, of its variance plus eps over the "
         "channels (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div)");
  else
    importConstant();
}

OnnxModel OnnxImporter::run() {
  readOpset();
  checkSingleAssignment();
  G.Name = GP.name().empty() ? llvm::sys::path::stem(File).str() : GP.name();
  G.Loc = {File, 0};
  if (GP.output_size() != 1)
    throw OnnxError{fmt::format("{}: the graph has {} outputs; the accelerator produces one", File,
                                GP.output_size())};
  OutputName = GP.output(0).name();
  readConstants();
  readDataInput();

  Live = liveNodes();
  for (int I = 0; I < GP.node_size(); ++I) {
    if (!Live[size_t(I)])
      continue;
    Node = &GP.node(I);
    NodeIndex = I;
    importNode(*Node);
  }
  Node = nullptr;
  auto It = Values.find(OutputName);
  if (It == Values.end())
    throw OnnxError{fmt::format("{}: graph output '{}' is produced by no node", File, OutputName)};
  if (It->second.IsConst)
    throw OnnxError{fmt::format("{}: graph output '{}' is a constant; there is nothing to compute",
                                File, OutputName)};
  if (It->second.GeluStep)
    throw OnnxError{fmt::format("{}: graph output '{}' is step {} of a GELU's five nodes, not a "
                                "function snowc computes",
                                File, OutputName, It->second.GeluStep)};
  // Live nodes are the output's ancestors, in topological order, so the
  // output's layer is the last one (or the graph input itself).
  assert((It->second.Layer < 0 || size_t(It->second.Layer) + 1 == G.Layers.size()) &&
         "the output is the last layer");
  foldAffineConsts();
  lowerUnfoldableBatchNorms();
  splitConcatsByReader();
  nestConcats();
  addCopyIfEmpty();
  checkOutput();
  return std::move(Result);
}

//===-- API --------------------------------------------------------------===//

namespace {

llvm::Expected<OnnxModel> importModel(const onnx::ModelProto &M, const std::string &File,
                                      const OnnxImportOptions &Opts) {
  try {
    OnnxModel R = OnnxImporter(M, llvm::sys::path::filename(File).str(), Opts).run();
    // Before any tensor is allocated (the float run, the default input).
    const uint64_t Max = snow::maxActivationValues();
    auto Check = [&](const std::string &What, const Shape &S) {
      if (S.elems() > Max)
        throw OnnxError{fmt::format("{}: {} ({}x{}x{}) has {} values, more than the {} a tensor "
                                    "may have (the environment variable "
                                    "SNOW_MAX_TENSOR_MVALUES raises the limit, in millions)",
                                    File, What, S.C, S.H, S.W, S.elems(), Max)};
    };
    Check("the input '" + R.G.InputName + "'", R.G.Input);
    uint64_t Values = R.G.Input.elems(), Macs = 0, Weights = 0;
    for (const Layer &L : R.G.Layers) {
      Check("the output of '" + L.Name + "'", L.Out);
      Values += L.Out.elems();
      Macs += L.macs();
      Weights += L.Weights.size();
      if (Values > snow::maxModelActivationValues())
        throw OnnxError{fmt::format("{}: the outputs of the layers up to '{}' hold {} values, "
                                    "more than the {} a model may have (SNOW_MAX_TENSOR_MVALUES "
                                    "raises the limit: twice its value)",
                                    File, L.Name, Values, snow::maxModelActivationValues())};
      if (Macs > snow::maxModelMacs())
        throw OnnxError{fmt::format("{}: the layers up to '{}' take {} multiply-accumulates per "
                                    "frame, more than the {} a model may (SNOW_MAX_GMACS raises "
                                    "the limit, in billions)",
                                    File, L.Name, Macs, snow::maxModelMacs())};
      if (Weights > snow::MaxModelWeights)
        throw OnnxError{fmt::format("{}: the weights up to '{}' number {}, more than the {} a "
                                    "model may have",
                                    File, L.Name, Weights, snow::MaxModelWeights)};
    }
    return R;
  } catch (const OnnxError &E) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), E.Msg);
  }
}

llvm::Error notAModel(const std::string &File) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "%s: not an ONNX model (the protobuf does not parse as a "
                                 "ModelProto)",
                                 File.c_str());
}

} // namespace

llvm::Expected<OnnxModel> snow::ir::parseOnnx(const std::string &Bytes, const std::string &File,
                                              const OnnxImportOptions &Opts) {
  onnx::ModelProto M;
  if (!M.ParseFromString(Bytes))
    return notAModel(File);
  return importModel(M, File, Opts);
}

llvm::Expected<OnnxModel> snow::ir::parseOnnxText(const std::string &Text, const std::string &File,
                                                  const OnnxImportOptions &Opts) {
  onnx::ModelProto M;
  if (!google::protobuf::TextFormat::ParseFromString(Text, &M))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: not a ModelProto in protobuf text format", File.c_str());
  return importModel(M, File, Opts);
}

llvm::Expected<std::vector<std::string>> snow::ir::onnxRuntimeInputs(const std::string &Bytes,
                                                                     const std::string &File) {
  onnx::ModelProto M;
  if (!M.ParseFromString(Bytes))
    return notAModel(File);
  std::set<std::string> Init;
  for (const onnx::TensorProto &T : M.graph().initializer())
    Init.insert(T.name());
  std::vector<std::string> Names;
  for (const onnx::ValueInfoProto &I : M.graph().input())
    if (!Init.count(I.name()))
      Names.push_back(I.name());
  return Names;
}

llvm::Expected<OnnxModel> snow::ir::importOnnx(const std::string &Path,
                                               const OnnxImportOptions &Opts) {
  auto Buf = snow::readInputFile(Path, /*IsText=*/false);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "%s: cannot read model: %s", Path.c_str(),
                                   Buf.getError().message().c_str());
  if ((*Buf)->getBufferSize() > size_t(INT_MAX))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: the model is larger than protobuf's 2 GiB limit",
                                   Path.c_str());
  // Parsed in place: a large model's bytes are not copied once more.
  onnx::ModelProto M;
  if (!M.ParseFromArray((*Buf)->getBufferStart(), int((*Buf)->getBufferSize())))
    return notAModel(Path);
  Buf->reset();
  return importModel(M, Path, Opts);
}

bool snow::ir::isOnnxPath(llvm::StringRef Path) { return Path.endswith_insensitive(".onnx"); }

llvm::Expected<Graph> snow::ir::loadAnyModel(const std::string &Path, const OnnxImportOptions &Opts,
                                             SeededValues Values) {
  if (!isOnnxPath(Path)) {
    if (!Opts.Consts.empty())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "%s: --const binds inputs of an ONNX model; a YAML model "
                                     "has none",
                                     Path.c_str());
    return loadModel(Path, Values);
  }
  llvm::Expected<OnnxModel> M = importOnnx(Path, Opts);
  if (!M)
    return M.takeError();
  return std::move(M->G);
}

llvm::Error snow::ir::addOnnxConst(llvm::StringRef Spec, OnnxImportOptions &Opts) {
  auto [Name, Path] = Spec.split('=');
  if (Name.empty() || Path.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--const '%s': expected NAME=FILE (FILE: .npy or .pb)",
                                   Spec.str().c_str());
  if (Opts.Consts.count(Name.str()))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--const '%s': input '%s' is bound twice", Spec.str().c_str(),
                                   Name.str().c_str());
  llvm::Expected<OnnxTensor> T = readOnnxTensor(Path.str());
  if (!T)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "--const '%s': %s",
                                   Spec.str().c_str(), llvm::toString(T.takeError()).c_str());
  Opts.Consts[Name.str()] = std::move(*T);
  return llvm::Error::success();
}
