//===- OnnxExport.cpp - Graph IR -> ONNX ModelProto -----------------------===//
//
// Writes an as-written graph (a loaded YAML model) as ONNX, opset 13, with
// its weights (seeded or from files) as initializers. Its purpose is the
// round trip: importing the file must give a graph that canonicalizes to the
// same layers, so the ONNX and YAML front ends can be checked to produce
// byte-identical programs (tests/onnx). It also hands the YAML models to
// other ONNX tools.
//
// Layer names become node names and the names of the tensors they produce.
// What the YAML folds into a layer becomes a node of its own, named after it:
// a fused relu is a Relu node "<layer>_relu"; the flatten an fc implies is a
// Flatten node "<fc>_flatten". Tensors are NCHW with a batch of 1, except
// that fc and flatten outputs are [1, C], as ONNX's Gemm wants (and layers
// reading them keep that rank). ONNX's own checker and strict shape
// inference vet every exported model before it is written.
//
//===----------------------------------------------------------------------===//

#include "ChannelMoves.h"
#include "OnnxImporter.h"

#include "snow/support/FileIO.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <set>

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

namespace {

struct ExportError {
  std::string Msg;
};

class OnnxExporter {
public:
  explicit OnnxExporter(const Graph &G) : G(G), GP(*M.mutable_graph()) {}
  std::string run();

private:
  const Graph &G;
  onnx::ModelProto M;
  onnx::GraphProto &GP;
  std::set<std::string> Used;
  std::vector<std::string> OutName;
  std::vector<size_t> OutRank;

  std::string fresh(const std::string &Want) {
    std::string Name = Want;
    for (unsigned K = 1; Used.count(Name); ++K)
      Name = fmt::format("{}_{}", Want, K);
    Used.insert(Name);
    return Name;
  }
  std::string inName(int P) const { return P < 0 ? G.InputName : OutName[size_t(P)]; }
  size_t inRank(int P) const { return P < 0 ? 4 : OutRank[size_t(P)]; }

  onnx::NodeProto &node(const std::string &Op, const std::string &Name,
                        std::vector<std::string> Inputs, const std::string &Output) {
    onnx::NodeProto &N = *GP.add_node();
    N.set_op_type(Op);
    N.set_name(Name);
    for (std::string &I : Inputs)
      N.add_input(std::move(I));
    N.add_output(Output);
    return N;
  }
  static void attr(onnx::NodeProto &N, const char *Name, std::vector<int64_t> V) {
    onnx::AttributeProto &A = *N.add_attribute();
    A.set_name(Name);
    A.set_type(onnx::AttributeProto::INTS);
    for (int64_t X : V)
      A.add_ints(X);
  }
  static void attr(onnx::NodeProto &N, const char *Name, int64_t V) {
    onnx::AttributeProto &A = *N.add_attribute();
    A.set_name(Name);
    A.set_type(onnx::AttributeProto::INT);
    A.set_i(V);
  }
  static void attrF(onnx::NodeProto &N, const char *Name, float V) {
    onnx::AttributeProto &A = *N.add_attribute();
    A.set_name(Name);
    A.set_type(onnx::AttributeProto::FLOAT);
    A.set_f(V);
  }
  /// T, named Want or a fresh variant of it, as an initializer; its name.
  std::string initializer(const std::string &Want, OnnxTensor T) {
    T.Name = fresh(Want);
    tensorToProto(T, *GP.add_initializer());
    return T.Name;
  }
  std::string initializer(const std::string &Want, std::vector<int64_t> Dims,
                          const std::vector<float> &Values) {
    OnnxTensor T;
    T.Dims = std::move(Dims);
    T.Floats = Values;
    return initializer(Want, std::move(T));
  }
  /// A 1-D int64 initializer (shapes and Slice bounds).
  std::string ints(const std::string &Want, std::vector<int64_t> Values) {
    OnnxTensor T;
    T.Dims = {int64_t(Values.size())};
    T.Type = OnnxTensor::ElemType::Int64;
    T.Ints = std::move(Values);
    return initializer(Want, std::move(T));
  }
  bool exportChannelMove(const Layer &L, int P, const std::string &Out);
  static void valueInfo(onnx::ValueInfoProto &V, const std::string &Name,
                        const std::vector<int64_t> &Dims) {
    V.set_name(Name);
    onnx::TypeProto::Tensor &T = *V.mutable_type()->mutable_tensor_type();
    T.set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t D : Dims)
      T.mutable_shape()->add_dim()->set_dim_value(D);
  }
  void window(onnx::NodeProto &N, const Layer &L) {
    attr(N, "kernel_shape", {L.KH, L.KW});
    attr(N, "strides", {L.SH, L.SW});
    attr(N, "pads", {L.PadT, L.PadL, L.PadB, L.PadR});
  }
  void needMap(const Layer &L, int P) const {
    if (inRank(P) != 4)
      throw ExportError{fmt::format("{}: layer '{}': a {} cannot read the vector '{}' in ONNX "
                                    "(it needs an N x C x H x W input)",
                                    L.Loc.str(), L.Name, L.TypeName, inName(P))};
  }
  void exportLayer(const Layer &L);
  void selfCheck();
};

/// A model ONNX's own checker or its strict shape inference refuses would be
/// a bug here, not the user's, and other tools would fail on it later.
void OnnxExporter::selfCheck() {
  try {
    onnx::checker::check_model(M);
    onnx::ShapeInferenceOptions Strict{/*check_type=*/true, /*error_mode=*/1,
                                       /*enable_data_propagation=*/false};
    onnx::shape_inference::InferShapes(M, onnx::OpSchemaRegistry::Instance(), Strict);
    // Only the check was wanted; the inferred shapes stay out of the file.
    GP.clear_value_info();
  } catch (const std::exception &E) {
    std::string Msg = E.what();
    std::replace(Msg.begin(), Msg.end(), '\n', ' ');
    throw ExportError{G.Loc.str() +
                      ": internal error: ONNX's checker refuses the exported "
                      "model: " +
                      Msg};
  }
}

/// YAML's shuffle and slice as PyTorch writes channel_shuffle and chunk
/// (Reshape to [1, g, C/g, H, W], Transpose, Reshape back; Slice on the
/// channel axis), so that an importer sees channel moves, not convs (snowc's
/// folds them into the convs that read them, docs/onnx.md, "Channel moves").
/// False, writing nothing, for any other layer.
bool OnnxExporter::exportChannelMove(const Layer &L, int P, const std::string &Out) {
  if ((L.TypeName != "shuffle" && L.TypeName != "slice") || !L.isChannelCopy())
    return false;
  const std::vector<uint32_t> Rows = detail::selectRows(L);
  const int64_t C = L.In.C, H = L.In.H, W = L.In.W;
  if (L.TypeName == "slice") {
    for (size_t I = 1; I < Rows.size(); ++I)
      if (Rows[I] != Rows[0] + I)
        return false;
    node("Slice", L.Name,
         {inName(P), ints(L.Name + ".starts", {Rows[0]}),
          ints(L.Name + ".ends", {int64_t(Rows[0] + Rows.size())}), ints(L.Name + ".axes", {1})},
         Out);
    return true;
  }
  // Output channel b * g + a is input channel a * C/g + b: Rows[1] = C/g.
  const int64_t PerGroup = C > 1 ? Rows[1] : 1, Groups = C / PerGroup;
  for (int64_t O = 0; O < C; ++O)
    if (int64_t(Rows[size_t(O)]) != O % Groups * PerGroup + O / Groups)
      return false;
  const std::string Split = fresh(L.Name + "_split"), Swapped = fresh(L.Name + "_transposed");
  node("Reshape", Split, {inName(P), ints(L.Name + ".split_shape", {1, Groups, PerGroup, H, W})},
       Split);
  attr(node("Transpose", Swapped, {Split}, Swapped), "perm", {0, 2, 1, 3, 4});
  node("Reshape", L.Name, {Swapped, ints(L.Name + ".shape", {1, C, H, W})}, Out);
  return true;
}

void OnnxExporter::exportLayer(const Layer &L) {
  const int P = L.input();
  const bool OwnRelu =
      L.Relu && (L.Kind == LayerKind::Conv || L.Kind == LayerKind::Fc || L.Kind == LayerKind::Add);
  const std::string Out = OwnRelu ? fresh(L.Name + "_prerelu") : L.Name;
  size_t Rank = inRank(P);
  switch (L.Kind) {
  case LayerKind::Conv: {
    needMap(L, P);
    if (exportChannelMove(L, P, Out))
      break;
    if (L.DynamicWeights) { // scale: x [N, C, H, W] * s [N, C, 1, 1].
      if (inRank(L.Inputs[1]) != 4)
        throw ExportError{fmt::format("{}: layer '{}': the scale '{}' must be a C x 1 x 1 map "
                                      "for ONNX's broadcast",
                                      L.Loc.str(), L.Name, inName(L.Inputs[1]))};
      node("Mul", L.Name, {inName(P), inName(L.Inputs[1])}, Out);
      break;
    }
    std::vector<std::string> In = {
        inName(P),
        initializer(L.Name + ".weight", {L.Out.C, L.In.C / L.Groups, L.KH, L.KW}, L.Weights)};
    if (L.HasBias)
      In.push_back(initializer(L.Name + ".bias", {L.Out.C}, L.Bias));
    onnx::NodeProto &N = node("Conv", L.Name, std::move(In), Out);
    window(N, L);
    attr(N, "group", int64_t(L.Groups));
    break;
  }
  case LayerKind::MaxPool:
  case LayerKind::AvgPool: {
    needMap(L, P);
    bool Max = L.Kind == LayerKind::MaxPool;
    onnx::NodeProto &N = node(Max ? "MaxPool" : "AveragePool", L.Name, {inName(P)}, Out);
    window(N, L);
    if (L.CeilMode)
      attr(N, "ceil_mode", 1);
    if (!Max) // The hardware's (and PyTorch's default) divisor.
      attr(N, "count_include_pad", 1);
    break;
  }
  case LayerKind::GlobalAvgPool:
    needMap(L, P);
    node("GlobalAveragePool", L.Name, {inName(P)}, Out);
    break;
  case LayerKind::Fc: {
    std::string In = inName(P);
    if (Rank != 2) {
      In = fresh(L.Name + "_flatten");
      attr(node("Flatten", In, {inName(P)}, In), "axis", 1);
    }
    std::vector<std::string> Ins = {
        In, initializer(L.Name + ".weight", {L.Out.C, int64_t(L.In.elems())}, L.Weights)};
    if (L.HasBias)
      Ins.push_back(initializer(L.Name + ".bias", {L.Out.C}, L.Bias));
    attr(node("Gemm", L.Name, std::move(Ins), Out), "transB", 1);
    Rank = 2;
    break;
  }
  case LayerKind::Concat:
  case LayerKind::Add:
  case LayerKind::Mul: {
    std::vector<std::string> Ins;
    for (int I : L.Inputs) {
      if (inRank(I) != Rank)
        throw ExportError{fmt::format("{}: layer '{}': its inputs mix vectors and feature maps, "
                                      "which ONNX's {} does not accept",
                                      L.Loc.str(), L.Name, L.TypeName)};
      Ins.push_back(inName(I));
    }
    onnx::NodeProto &N = node(L.Kind == LayerKind::Concat ? "Concat"
                              : L.Kind == LayerKind::Add  ? "Add"
                                                          : "Mul",
                              L.Name, std::move(Ins), Out);
    if (L.Kind == LayerKind::Concat)
      attr(N, "axis", 1);
    break;
  }
  case LayerKind::Relu:
    node("Relu", L.Name, {inName(P)}, Out);
    break;
  case LayerKind::Slice: // Refused by writeOnnx (canonical graphs only).
    break;
  case LayerKind::Activation:
    // Opset 13 has no HardSwish or SiLU node: both are written as PyTorch
    // exports them, x * f(x), which the importer folds back into one layer.
    switch (L.Activation) {
    case Act::Clip: {
      std::string Lo = initializer(L.Name + ".min", {}, {L.ActP0});
      std::string Hi = initializer(L.Name + ".max", {}, {L.ActP1});
      node("Clip", L.Name, {inName(P), Lo, Hi}, Out);
      break;
    }
    case Act::Sigmoid:
      node("Sigmoid", L.Name, {inName(P)}, Out);
      break;
    case Act::Tanh:
      node("Tanh", L.Name, {inName(P)}, Out);
      break;
    case Act::HardSigmoid: {
      onnx::NodeProto &N = node("HardSigmoid", L.Name, {inName(P)}, Out);
      attrF(N, "alpha", L.ActP0);
      attrF(N, "beta", L.ActP1);
      break;
    }
    case Act::HardSwish:
    case Act::Silu: {
      std::string F = fresh(L.Name + "_gate");
      onnx::NodeProto &N =
          node(L.Activation == Act::Silu ? "Sigmoid" : "HardSigmoid", F, {inName(P)}, F);
      if (L.Activation == Act::HardSwish) {
        attrF(N, "alpha", 1.0f / 6);
        attrF(N, "beta", 0.5f);
      }
      node("Mul", L.Name, {inName(P), F}, Out);
      break;
    }
    case Act::Rsqrt:
      node("Pow", L.Name, {inName(P), initializer(L.Name + ".exponent", {}, {-0.5f})}, Out);
      break;
    case Act::Gelu: { // As PyTorch writes it: x * (1 + erf(x / sqrt 2)) * 0.5.
      const std::string X = inName(P), Div = fresh(L.Name + "_div"), Erf = fresh(L.Name + "_erf"),
                        One = fresh(L.Name + "_add"), Twice = fresh(L.Name + "_mul");
      node("Div", Div, {X, initializer(L.Name + ".sqrt2", {}, {float(M_SQRT2)})}, Div);
      node("Erf", Erf, {Div}, Erf);
      node("Add", One, {Erf, initializer(L.Name + ".one", {}, {1.0f})}, One);
      node("Mul", Twice, {X, One}, Twice);
      node("Mul", L.Name, {Twice, initializer(L.Name + ".half", {}, {0.5f})}, Out);
      break;
    }
    case Act::None:
      assert(false && "an Activation layer has a function");
      break;
    }
    break;
  case LayerKind::BatchNorm: {
    std::vector<std::string> Ins = {inName(P)};
    Ins.push_back(initializer(L.Name + ".weight", {L.In.C}, L.Gamma));
    Ins.push_back(initializer(L.Name + ".bias", {L.In.C}, L.Beta));
    Ins.push_back(initializer(L.Name + ".running_mean", {L.In.C}, L.Mean));
    Ins.push_back(initializer(L.Name + ".running_var", {L.In.C}, L.Var));
    attrF(node("BatchNormalization", L.Name, std::move(Ins), Out), "epsilon", L.Eps);
    break;
  }
  case LayerKind::LayerNorm: {
    // As PyTorch writes LayerNorm2d at opset 13: channels last, layer_norm
    // decomposed over them, channels first again.
    if (Rank != 4)
      throw ExportError{fmt::format("{}: layer '{}': a layernorm is written for a feature map "
                                    "(N, C, H, W); its input is a vector",
                                    L.Loc.str(), L.Name)};
    auto Fresh = [&](const char *Step) { return fresh(L.Name + "_" + Step); };
    const std::string T = Fresh("nhwc"), M = Fresh("mean"), D = Fresh("sub"), Sq = Fresh("pow"),
                      V = Fresh("var"), Ve = Fresh("add"), S = Fresh("sqrt"), N = Fresh("div"),
                      Gm = Fresh("mul"), Bt = Fresh("affine");
    attr(node("Transpose", T, {inName(P)}, T), "perm", std::vector<int64_t>{0, 2, 3, 1});
    attr(node("ReduceMean", M, {T}, M), "axes", std::vector<int64_t>{-1});
    node("Sub", D, {T, M}, D);
    node("Pow", Sq, {D, initializer(L.Name + ".two", {}, {2.0f})}, Sq);
    attr(node("ReduceMean", V, {Sq}, V), "axes", std::vector<int64_t>{-1});
    node("Add", Ve, {V, initializer(L.Name + ".eps", {}, {L.Eps})}, Ve);
    node("Sqrt", S, {Ve}, S);
    node("Div", L.Name, {D, S}, N); // The node the importer names the layer after.
    node("Mul", Gm, {N, initializer(L.Name + ".weight", {L.In.C}, L.Gamma)}, Gm);
    node("Add", Bt, {Gm, initializer(L.Name + ".bias", {L.In.C}, L.Beta)}, Bt);
    attr(node("Transpose", Fresh("nchw"), {Bt}, Out), "perm", std::vector<int64_t>{0, 3, 1, 2});
    break;
  }
  case LayerKind::Flatten:
    attr(node("Flatten", L.Name, {inName(P)}, Out), "axis", 1);
    Rank = 2;
    break;
  case LayerKind::Softmax:
    // Over the channels: the input is C x 1 x 1, so that is the whole vector.
    attr(node("Softmax", L.Name, {inName(P)}, Out), "axis", 1);
    break;
  }
  if (OwnRelu)
    node("Relu", fresh(L.Name + "_relu"), {Out}, L.Name);
  OutName.push_back(L.Name);
  OutRank.push_back(Rank);
}

std::string OnnxExporter::run() {
  // ONNX 1.12 reads IR version 8; opset 13 has Softmax over one axis and
  // BatchNormalization without training outputs.
  M.set_ir_version(8);
  M.set_producer_name("snowc");
  onnx::OperatorSetIdProto &Op = *M.add_opset_import();
  Op.set_domain("");
  Op.set_version(13);
  GP.set_name(G.Name);
  Used.insert(G.InputName);
  for (const Layer &L : G.Layers)
    Used.insert(L.Name);
  valueInfo(*GP.add_input(), G.InputName, {1, G.Input.C, G.Input.H, G.Input.W});
  for (const Layer &L : G.Layers) {
    if (L.HasResidual || L.Kind == LayerKind::Slice)
      throw ExportError{fmt::format("{}: layer '{}': the graph is canonical ({}); export the "
                                    "graph as written",
                                    L.Loc.str(), L.Name,
                                    L.HasResidual ? "a residual is fused into a conv"
                                                  : "sibling convs are merged")};
    exportLayer(L);
  }
  if (G.Layers.empty())
    throw ExportError{G.Loc.str() + ": the model has no layers"};
  const Layer &Last = G.Layers.back();
  std::vector<int64_t> Dims = {1, Last.Out.C};
  if (OutRank.back() == 4)
    Dims = {1, Last.Out.C, Last.Out.H, Last.Out.W};
  valueInfo(*GP.add_output(), Last.Name, Dims);
  selfCheck();
  std::string Bytes;
  if (!M.SerializeToString(&Bytes))
    throw ExportError{G.Loc.str() + ": the model is too large for one protobuf (2 GiB)"};
  return Bytes;
}

} // namespace

llvm::Expected<std::string> snow::ir::exportOnnx(const Graph &G) {
  try {
    return OnnxExporter(G).run();
  } catch (const ExportError &E) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), E.Msg);
  }
}

llvm::Error snow::ir::writeOnnx(const Graph &G, const std::string &Path) {
  llvm::Expected<std::string> Bytes = exportOnnx(G);
  if (!Bytes)
    return Bytes.takeError();
  return writeFileAtomic(Path, *Bytes);
}
