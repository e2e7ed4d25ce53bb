//===- ModelLayers.cpp - The layer types of the model YAML ----------------===//
//
// One function per layer type: which keys it takes, how its output shape
// follows from its input (PyTorch's rules), and where its parameters come
// from (seeded or .npy). The common structure (names, input / inputs, value
// readers) is in ModelYaml.cpp; docs/model-format.md is the user's view of
// both.
//
//===----------------------------------------------------------------------===//

#include "ModelParser.h"

#include "snow/support/Limits.h"
#include "llvm/Support/Path.h"
#include <fmt/format.h>

using namespace snow::ir;
using namespace snow::ir::detail;

namespace {

const char *const ConvKeys[] = {"out_channels", "kernel", "stride",       "pad",      "groups",
                                "relu",         "bias",   "weights_file", "bias_file"};
const char *const PoolKeys[] = {"kernel", "stride", "pad", "ceil_mode"};
const char *const FcKeys[] = {"out_features", "relu", "bias", "weights_file", "bias_file"};
const char *const AddKeys[] = {"relu"};
const char *const ClipKeys[] = {"min", "max"};
const char *const HardSigmoidKeys[] = {"alpha", "beta"};
const char *const BatchNormKeys[] = {"eps", "gamma_file", "beta_file", "mean_file", "var_file"};
const char *const LayerNormKeys[] = {"eps", "gamma_file", "beta_file"};
const char *const ShuffleKeys[] = {"groups"};
const char *const SliceKeys[] = {"begin", "channels"};

const TypeInfo Types[] = {
    {"conv", LayerKind::Conv, ConvKeys, false},
    {"maxpool", LayerKind::MaxPool, PoolKeys, false},
    {"avgpool", LayerKind::AvgPool, PoolKeys, false},
    {"global_avgpool", LayerKind::GlobalAvgPool, {}, false},
    {"fc", LayerKind::Fc, FcKeys, false},
    {"concat", LayerKind::Concat, {}, true},
    {"add", LayerKind::Add, AddKeys, true},
    {"mul", LayerKind::Mul, {}, true},
    {"relu", LayerKind::Relu, {}, false},
    {"batchnorm", LayerKind::BatchNorm, BatchNormKeys, false},
    {"layernorm", LayerKind::LayerNorm, LayerNormKeys, false},
    {"flatten", LayerKind::Flatten, {}, false},
    {"softmax", LayerKind::Softmax, {}, false},
    // Element-wise functions, fused into the conv before them (the
    // post-processing table); parseActivation tells them apart by name.
    // x * s per channel, s computed at run time (squeeze-and-excitation):
    // a depthwise 1x1 conv whose weights are s.
    {"scale", LayerKind::Conv, {}, true},
    // Channels moved (ShuffleNet's channel_shuffle, a split's part): a 1x1
    // conv with 0/1 weights, a selection (parseSelection).
    {"shuffle", LayerKind::Conv, ShuffleKeys, false},
    {"slice", LayerKind::Conv, SliceKeys, false},
    {"relu6", LayerKind::Activation, {}, false},
    {"clip", LayerKind::Activation, ClipKeys, false},
    {"sigmoid", LayerKind::Activation, {}, false},
    {"hardsigmoid", LayerKind::Activation, HardSigmoidKeys, false},
    {"hardswish", LayerKind::Activation, {}, false},
    {"silu", LayerKind::Activation, {}, false},
    {"gelu", LayerKind::Activation, {}, false},
    {"tanh", LayerKind::Activation, {}, false},
    {"rsqrt", LayerKind::Activation, {}, false},
};

} // namespace

const TypeInfo *snow::ir::detail::findType(const std::string &Name) {
  for (const TypeInfo &T : Types)
    if (Name == T.Name)
      return &T;
  return nullptr;
}

std::string snow::ir::detail::supportedTypes() {
  std::vector<const char *> Names;
  for (const TypeInfo &T : Types)
    Names.push_back(T.Name);
  return fmt::format("{}", fmt::join(Names, ", "));
}

void ModelParser::parseWindow(const YAML::Node &N, Layer &L) {
  bool IsConv = L.Kind == LayerKind::Conv;
  HW K = hw(required(N, N, "kernel"), "kernel");
  L.KH = K.H;
  L.KW = K.W;
  HW S = IsConv ? HW{1, 1} : K; // PyTorch: pooling stride defaults to the kernel
  if (YAML::Node SN = N["stride"])
    S = hw(SN, "stride");
  L.SH = S.H;
  L.SW = S.W;
  Pads P{0, 0, 0, 0};
  if (YAML::Node PN = N["pad"]) {
    P = pads(PN);
    unsigned PadH = std::max(P.T, P.B), PadW = std::max(P.L, P.R);
    if (!IsConv && (2 * PadH > L.KH || 2 * PadW > L.KW))
      error(PN, fmt::format("pad '{}' is more than half the kernel {}x{} (PyTorch's rule for "
                            "pooling)",
                            2 * PadH > L.KH ? PadH : PadW, L.KH, L.KW));
  }
  L.PadT = P.T;
  L.PadB = P.B;
  L.PadL = P.L;
  L.PadR = P.R;
  if (YAML::Node CN = N["ceil_mode"]) {
    L.CeilMode = boolean(CN, "ceil_mode");
    // With ceil_mode a window can hang over the end of the padded input, and
    // PyTorch then divides by a count that differs from KH*KW at the edges;
    // one AvgMult per layer cannot express that.
    if (L.CeilMode && L.Kind == LayerKind::AvgPool)
      error(CN, "'ceil_mode: true' is not supported for avgpool (edge windows would divide by "
                "a different count)");
  }

  uint64_t PH = uint64_t(L.In.H) + L.PadT + L.PadB, PW = uint64_t(L.In.W) + L.PadL + L.PadR;
  if (L.KH > PH || L.KW > PW)
    error(N, fmt::format("kernel {}x{} is larger than its padded input {}x{}", L.KH, L.KW, PH, PW));
  if (L.Kind == LayerKind::AvgPool && uint64_t(L.KH) * L.KW > MaxAvgWindow)
    error(N, fmt::format("an average over {}x{} positions is more than the supported {}", L.KH,
                         L.KW, MaxAvgWindow));
  L.Out.C = L.In.C;
  L.Out.H = windowOutSize(L.In.H, L.KH, L.SH, L.PadT, L.PadB, L.CeilMode);
  L.Out.W = windowOutSize(L.In.W, L.KW, L.SW, L.PadL, L.PadR, L.CeilMode);
  // Unreachable after the kernel check with PyTorch's rule, but the shape
  // must never reach the compiler with a zero in it.
  if (L.Out.H < 1 || L.Out.W < 1)
    error(N, fmt::format("output size {}x{} is less than 1", L.Out.H, L.Out.W));
}

void ModelParser::parseSelection(const YAML::Node &N, Layer &L) {
  const uint32_t C = L.In.C;
  std::vector<uint32_t> Rows;
  if (L.TypeName == "shuffle") {
    // torch's channel_shuffle: view (g, C/g), transpose, flatten; output
    // channel b * g + a is input channel a * C/g + b.
    YAML::Node GN = required(N, N, "groups");
    const uint32_t G = uint32_t(integer(GN, "groups", 1, "a positive integer"));
    if (C % G != 0)
      error(GN, fmt::format("'groups' '{}' does not divide the input channels '{}'", G, C));
    for (uint32_t B = 0; B < C / G; ++B)
      for (uint32_t A = 0; A < G; ++A)
        Rows.push_back(A * (C / G) + B);
  } else {
    YAML::Node BN = required(N, N, "begin"), CN = required(N, N, "channels");
    const int64_t Begin = integer(BN, "begin", 0, "a non-negative integer");
    const int64_t Count = integer(CN, "channels", 1, "a positive integer");
    if (Begin + Count > int64_t(C))
      error(CN,
            fmt::format("channels [{}, {}) are outside the input's {}", Begin, Begin + Count, C));
    for (int64_t I = 0; I < Count; ++I)
      Rows.push_back(uint32_t(Begin + I));
  }
  makeSelection(L, Rows);
}

void ModelParser::parseConv(const YAML::Node &N, Layer &L) {
  parseWindow(N, L);
  YAML::Node OutNode = required(N, N, "out_channels");
  L.Out.C = uint32_t(integer(OutNode, "out_channels", 1, "a positive integer"));
  if (YAML::Node GN = N["groups"]) {
    L.Groups = unsigned(integer(GN, "groups", 1, "a positive integer"));
    if (L.In.C % L.Groups != 0)
      error(GN,
            fmt::format("'groups' '{}' does not divide the input channels '{}'", L.Groups, L.In.C));
    if (L.Out.C % L.Groups != 0)
      error(GN,
            fmt::format("'groups' '{}' does not divide 'out_channels' '{}'", L.Groups, L.Out.C));
  }
  if (YAML::Node RN = N["relu"])
    L.Relu = boolean(RN, "relu");
  uint32_t PerGroup = L.In.C / L.Groups;
  attachWeights(N, L, {L.Out.C, PerGroup, L.KH, L.KW});
}

void ModelParser::parseFc(const YAML::Node &N, Layer &L) {
  // Any input shape: the flatten in front of an fc is implied, in CHW order.
  L.Out = {
      uint32_t(integer(required(N, N, "out_features"), "out_features", 1, "a positive integer")), 1,
      1};
  if (YAML::Node RN = N["relu"])
    L.Relu = boolean(RN, "relu");
  attachWeights(N, L, {L.Out.C, L.In.elems()});
}

void ModelParser::parseJoin(const YAML::Node &N, Layer &L, const Graph &G) {
  YAML::Node List = N["inputs"];
  auto ShapeOf = [&](int I) { return I < 0 ? G.Input : G.Layers[I].Out; };
  auto NameOf = [&](int I) { return I < 0 ? G.InputName : G.Layers[I].Name; };
  L.Out = L.In;
  // Add and mul are element-wise: equal shapes.
  bool IsAdd = L.Kind == LayerKind::Add || L.Kind == LayerKind::Mul;
  for (size_t I = 1; I < L.Inputs.size(); ++I) {
    Shape A = L.In, B = ShapeOf(L.Inputs[I]);
    bool Fits = IsAdd ? A == B : A.H == B.H && A.W == B.W;
    if (!Fits)
      error(List[I], fmt::format("inputs '{}' ({}) and '{}' ({}) {}", NameOf(L.Inputs[0]),
                                 shapeStr(A), NameOf(L.Inputs[I]), shapeStr(B),
                                 IsAdd ? fmt::format("differ in shape; {} needs equal shapes",
                                                     kindName(L.Kind))
                                       : "differ in height or width; concat needs equal "
                                         "height and width"));
    if (!IsAdd)
      L.Out.C += B.C;
  }
  if (L.Out.C > MaxDim)
    error(List, fmt::format("the concatenation has {} channels, more than {}", L.Out.C, MaxDim));
  if (L.Kind == LayerKind::Add)
    if (YAML::Node RN = N["relu"])
      L.Relu = boolean(RN, "relu");
}

void ModelParser::parseScale(const YAML::Node &N, Layer &L, const Graph &G) {
  const Shape S = L.Inputs[1] < 0 ? G.Input : G.Layers[L.Inputs[1]].Out;
  if (!(S == Shape{L.In.C, 1, 1}))
    error(N["inputs"][1], fmt::format("the scale must hold one value per channel of the input, "
                                      "{}x1x1, got {}",
                                      L.In.C, shapeStr(S)));
  makeRunTimeScale(L);
}

void ModelParser::parseActivation(const YAML::Node &N, Layer &L) {
  L.Out = L.In;
  const std::string &T = L.TypeName;
  if (T == "relu6") {
    L.Activation = Act::Clip, L.ActP0 = 0, L.ActP1 = 6;
  } else if (T == "clip") {
    L.Activation = Act::Clip;
    L.ActP0 = float(finiteNumber(required(N, N, "min"), "min"));
    L.ActP1 = float(finiteNumber(required(N, N, "max"), "max"));
    if (L.ActP0 >= L.ActP1)
      error(N["max"], fmt::format("'max' ({}) must be greater than 'min' ({})", L.ActP1, L.ActP0));
  } else if (T == "hardsigmoid") {
    // PyTorch's nn.Hardsigmoid: alpha 1/6, beta 1/2 (ONNX's default alpha is 0.2).
    L.Activation = Act::HardSigmoid, L.ActP0 = 1.0f / 6, L.ActP1 = 0.5f;
    if (YAML::Node A = N["alpha"])
      L.ActP0 = float(positiveNumber(A, "alpha"));
    if (YAML::Node B = N["beta"])
      L.ActP1 = float(finiteNumber(B, "beta"));
  } else if (T == "sigmoid") {
    L.Activation = Act::Sigmoid;
  } else if (T == "hardswish") {
    L.Activation = Act::HardSwish;
  } else if (T == "silu") {
    L.Activation = Act::Silu;
  } else if (T == "gelu") {
    L.Activation = Act::Gelu;
  } else if (T == "rsqrt") {
    L.Activation = Act::Rsqrt;
  } else {
    assert(T == "tanh" && "an activation type without a function");
    L.Activation = Act::Tanh;
  }
}

void ModelParser::parseBatchNorm(const YAML::Node &N, Layer &L) {
  L.Out = L.In;
  if (YAML::Node EN = N["eps"])
    L.Eps = float(positiveNumber(EN, "eps"));
  // Seeded first, then files replace what they give, as for conv weights.
  seedBatchNorm(L, Seed);
  std::vector<uint64_t> Dims = {L.In.C};
  if (YAML::Node F = N["gamma_file"])
    loadNpy(F, "gamma_file", Dims, L.Gamma);
  if (YAML::Node F = N["beta_file"])
    loadNpy(F, "beta_file", Dims, L.Beta);
  if (YAML::Node F = N["mean_file"])
    loadNpy(F, "mean_file", Dims, L.Mean);
  if (YAML::Node F = N["var_file"]) {
    loadNpy(F, "var_file", Dims, L.Var);
    // The fold divides by sqrt(var + eps).
    for (size_t I = 0; I < L.Var.size(); ++I)
      if (L.Var[I] < 0)
        error(F, fmt::format("'var_file' '{}': variance {} of channel {} is negative", F.Scalar(),
                             L.Var[I], I));
  }
}

void ModelParser::loadNpy(const YAML::Node &F, const char *Key, const std::vector<uint64_t> &Shape,
                          std::vector<float> &Out) {
  std::string Rel = scalar(F, Key);
  std::string Path = Rel;
  if (!llvm::sys::path::is_absolute(Rel) && !Dir.empty())
    Path = (llvm::Twine(Dir) + llvm::sys::path::get_separator() + Rel).str();
  if (llvm::Error E = readTensorNpy(Path, Shape, Out))
    error(F, fmt::format("'{}' '{}': {}", Key, Rel, llvm::toString(std::move(E))));
}

void ModelParser::attachWeights(const YAML::Node &N, Layer &L,
                                const std::vector<uint64_t> &WShape) {
  uint64_t Count = 1;
  for (uint64_t D : WShape)
    Count *= D;
  if (Count > MaxWeights)
    error(N, fmt::format("{} weights are more than the supported {}", Count, MaxWeights));
  // Before the weights are drawn: a 618 G-MAC layer is refused in
  // microseconds, not after seconds of seeding (parseLayer adds it up).
  if (TotalMacs + L.macs() > snow::maxModelMacs())
    error(N, fmt::format("the layers up to this one take {} multiply-accumulates per frame, more "
                         "than the {} a model may (the environment variable SNOW_MAX_GMACS raises "
                         "the limit, in billions)",
                         TotalMacs + L.macs(), snow::maxModelMacs()));
  TotalWeights += Count;
  if (TotalWeights > snow::MaxModelWeights)
    error(N, fmt::format("the model's weights up to this layer number {}, more than the {} a "
                         "model may have",
                         TotalWeights, snow::MaxModelWeights));
  if (YAML::Node B = N["bias"])
    L.HasBias = boolean(B, "bias");
  YAML::Node WFile = N["weights_file"], BFile = N["bias_file"];
  if (BFile && !L.HasBias)
    error(BFile, "'bias_file' is given but 'bias' is false");
  // Seeded values first; files then replace what they provide. The bias
  // draws follow the weight draws, so a seeded bias does not depend on
  // whether the weights came from a file.
  if (WFile || Seeding == SeededValues::Eager)
    seedWeights(L, Seed, L.HasBias);
  else
    deferSeededWeights(L, Seed, L.HasBias);
  if (WFile)
    loadNpy(WFile, "weights_file", WShape, L.Weights);
  if (BFile)
    loadNpy(BFile, "bias_file", {L.Out.C}, L.Bias);
}
