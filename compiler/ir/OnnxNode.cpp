//===- OnnxNode.cpp - The node being imported: attributes and values ------===//
//
// What every operator function of the importer needs about its node: its
// attributes read with their types checked, its inputs as activations or
// constants (with the error a user can act on when one is the other), its
// outputs defined as values, and its layers named and located. Every message
// starts with the node's file, index, name and op type.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <fmt/format.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

//===-- Messages and attributes ------------------------------------------===//

std::string OnnxImporter::what() const {
  if (!Node)
    return File;
  std::string Name = Node->name().empty() ? "" : " '" + Node->name() + "'";
  return fmt::format("{}: node {}{} ({})", File, NodeIndex, Name, Node->op_type());
}

void OnnxImporter::fail(const std::string &Msg) const { throw OnnxError{what() + ": " + Msg}; }

void OnnxImporter::checkAttributes(std::initializer_list<const char *> Known) const {
  for (const onnx::AttributeProto &A : Node->attribute()) {
    bool Ok = false;
    for (const char *K : Known)
      Ok |= A.name() == K;
    if (!Ok)
      fail(fmt::format("attribute '{}' is not supported{}", A.name(),
                       Known.size() ? fmt::format(" (supported: {})", fmt::join(Known, ", "))
                                    : std::string(" (the operator takes none)")));
  }
}

const onnx::AttributeProto *OnnxImporter::attr(const char *Name) const {
  for (const onnx::AttributeProto &A : Node->attribute())
    if (A.name() == Name)
      return &A;
  return nullptr;
}

int64_t OnnxImporter::attrInt(const char *Name, int64_t Default) const {
  const onnx::AttributeProto *A = attr(Name);
  if (!A)
    return Default;
  if (A->type() != onnx::AttributeProto::INT)
    fail(fmt::format("attribute '{}' must be an integer", Name));
  return A->i();
}

float OnnxImporter::attrFloat(const char *Name, float Default) const {
  const onnx::AttributeProto *A = attr(Name);
  if (!A)
    return Default;
  if (A->type() != onnx::AttributeProto::FLOAT)
    fail(fmt::format("attribute '{}' must be a float", Name));
  return A->f();
}

std::string OnnxImporter::attrString(const char *Name, const std::string &Default) const {
  const onnx::AttributeProto *A = attr(Name);
  if (!A)
    return Default;
  if (A->type() != onnx::AttributeProto::STRING)
    fail(fmt::format("attribute '{}' must be a string", Name));
  return A->s();
}

std::vector<int64_t> OnnxImporter::attrInts(const char *Name,
                                            const std::vector<int64_t> &Default) const {
  const onnx::AttributeProto *A = attr(Name);
  if (!A)
    return Default;
  if (A->type() != onnx::AttributeProto::INTS)
    fail(fmt::format("attribute '{}' must be a list of integers", Name));
  return {A->ints().begin(), A->ints().end()};
}

//===-- Values -----------------------------------------------------------===//

size_t OnnxImporter::inputCount() const {
  // Trailing empty names are omitted optional inputs.
  size_t N = size_t(Node->input_size());
  while (N > 0 && Node->input(int(N) - 1).empty())
    --N;
  return N;
}

std::string OnnxImporter::inputName(size_t I) const {
  return I < size_t(Node->input_size()) ? Node->input(int(I)) : std::string();
}

const OnnxValue &OnnxImporter::input(size_t I, bool AcceptPad) const {
  std::string Name = inputName(I);
  if (Name.empty())
    fail(fmt::format("input {} is missing", I));
  auto It = Values.find(Name);
  if (It == Values.end())
    fail(fmt::format("input '{}' is not defined by an earlier node, an initializer or a graph "
                     "input",
                     Name));
  // Only the windows importPad found take a pending Pad; a Pad with any
  // other reader became a layer.
  if (It->second.padPending() && !AcceptPad)
    fail(fmt::format("input '{}' comes from {}, which is supported only where a Conv, "
                     "AveragePool or MaxPool reads it and takes its zeros as its own padding",
                     Name, It->second.PadNode));
  return It->second;
}

const OnnxValue &OnnxImporter::activation(size_t I, bool AcceptPad) const {
  const OnnxValue &V = input(I, AcceptPad);
  if (V.IsConst)
    fail(fmt::format("input '{}' is a constant, but the accelerator computes this operator on "
                     "run-time data only",
                     inputName(I)));
  return V;
}

const OnnxTensor &OnnxImporter::constant(size_t I) const {
  const OnnxValue &V = input(I);
  if (!V.IsConst)
    fail(fmt::format("input '{}' must be a constant (an initializer, a Constant node or "
                     "--const {}=FILE), but it is computed at run time",
                     inputName(I), inputName(I)));
  return *V.Const;
}

const OnnxTensor *OnnxImporter::optionalConstant(size_t I) const {
  if (inputName(I).empty())
    return nullptr;
  return &constant(I);
}

void OnnxImporter::onlyFirstOutput(const char *Why) const {
  for (int I = 1; I < Node->output_size(); ++I)
    if (!Node->output(I).empty())
      fail(fmt::format("output {} '{}' is not supported ({})", I, Node->output(I), Why));
}

void OnnxImporter::defineLike(Layer L, const OnnxValue &X) {
  std::vector<int64_t> Dims = X.Dims; // X may live in Values, which defining changes.
  L.In = L.Out = shapeOf(X.Layer);
  int Id = addLayer(std::move(L));
  defineActivation(0, Id, std::move(Dims));
}

void OnnxImporter::defineActivation(size_t Output, int LayerIndex, std::vector<int64_t> Dims) {
  for (int64_t D : Dims)
    if (D < 1 || D > OnnxMaxDim)
      fail(fmt::format("output shape {} has a dimension outside 1..{}", dimsStr(Dims), OnnxMaxDim));
  if (framesOf(Dims) != Result.Frames)
    fail(fmt::format("output shape {} does not keep the batch of {} on axis 0; the accelerator "
                     "runs the frames of a batch one at a time, so no operator may mix them",
                     dimsStr(Dims), Result.Frames));
  // An operator that reads a channels-last value (OnnxLayerNorm.cpp) keeps
  // the channels last.
  bool Last = false;
  for (int J = 0; J < Node->input_size(); ++J) {
    auto It = Values.find(Node->input(J));
    Last |= It != Values.end() && It->second.ChannelsLast;
  }
  Shape S = frameShape(Dims);
  if (Last && Dims.size() == 4)
    S = frameShape({Dims[0], Dims[3], Dims[1], Dims[2]});
  if (S.C > OnnxMaxDim || S.H > OnnxMaxDim || S.W > OnnxMaxDim)
    fail(fmt::format("output shape {} is too large for a frame (at most {} per axis)",
                     dimsStr(Dims), OnnxMaxDim));
  assert(S == shapeOf(LayerIndex) && "an activation's dims match its layer's shape");
  OnnxValue V;
  V.Layer = LayerIndex;
  V.Dims = std::move(Dims);
  V.ChannelsLast = Last && V.Dims.size() == 4;
  Values[Node->output(int(Output))] = std::move(V);
}

void OnnxImporter::defineAlias(size_t Output, const OnnxValue &V) {
  OnnxValue Copy = V;
  Values[Node->output(int(Output))] = std::move(Copy);
}

void OnnxImporter::defineConst(size_t Output, OnnxTensor T) {
  const std::string &Name = Node->output(int(Output));
  T.Name = Name;
  OnnxTensor &Stored = Consts[Name] = std::move(T);
  OnnxValue V;
  V.IsConst = true;
  V.Dims = Stored.Dims;
  V.Const = &Stored;
  Values[Name] = std::move(V);
}

Shape OnnxImporter::shapeOf(int LayerIndex) const {
  return LayerIndex < 0 ? G.Input : G.Layers[size_t(LayerIndex)].Out;
}

std::string OnnxImporter::uniqueName(const std::string &Want) {
  std::string Name = Want;
  for (unsigned K = 1; Name == G.InputName || LayerNames.count(Name); ++K)
    Name = fmt::format("{}_{}", Want, K);
  LayerNames.insert(Name);
  return Name;
}

int OnnxImporter::addLayer(Layer L, const std::string &Suffix) {
  // Node names are optional in ONNX; the first output's name always exists.
  std::string Base = Node->name().empty() ? Node->output(0) : Node->name();
  L.Name = uniqueName(Base + Suffix);
  L.Loc = {File, unsigned(NodeIndex)};
  if (L.Kind == LayerKind::Conv || L.Kind == LayerKind::Fc)
    if (L.Weights.size() > OnnxMaxWeights)
      fail(fmt::format("{} weights are more than the supported {}", L.Weights.size(),
                       OnnxMaxWeights));
  G.Layers.push_back(std::move(L));
  return int(G.Layers.size()) - 1;
}
