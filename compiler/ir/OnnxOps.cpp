//===- OnnxOps.cpp - The ONNX operators without a window -----------------===//
//
// One function per operator (those with a window are in OnnxWindows.cpp).
// Each function checks the node's attributes (any attribute it does not know
// is an error naming it), requires weights and shapes to be constants, maps
// the operator onto the layer the YAML front end would write for it and
// defines the node's output. The semantics follow the ONNX operator
// specification; where the hardware computes something narrower (no
// dilation, average pooling that always divides by the full window, one
// softmax per frame), the difference is an error, never a silent change of
// meaning. docs/onnx.md lists what each operator accepts.
//
//===----------------------------------------------------------------------===//

#include "ChannelMoves.h"
#include "OnnxImporter.h"
#include "snow/support/Limits.h"

#include <cmath>
#include <fmt/format.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

namespace {

/// Saturates at INT64_MAX: a shape that large fails the checks it meets.
int64_t product(const std::vector<int64_t> &Dims, size_t Begin, size_t End) {
  return snow::saturatingProductSigned(llvm::ArrayRef<int64_t>(Dims).slice(Begin, End - Begin));
}

} // namespace

//===-- Gemm, MatMul: fully connected ------------------------------------===//

void OnnxImporter::importGemm(bool IsMatMul) {
  if (IsMatMul)
    checkAttributes({});
  else
    checkAttributes({"alpha", "beta", "broadcast", "transA", "transB"});
  if (inputCount() < 2)
    fail("needs inputs A and B");
  const OnnxValue &A = activation(0);
  if (A.Dims.size() != 2)
    fail(fmt::format("input '{}' has shape {}: only a 2-D input [N, K] is supported (a fully "
                     "connected layer over the frames of a batch; flatten the input first)",
                     inputName(0), dimsStr(A.Dims)));
  const OnnxTensor &B = constant(1);
  if (B.Type != OnnxTensor::ElemType::Float || B.Dims.size() != 2)
    fail(fmt::format("weights '{}' must be a 2-D float32 matrix, got shape {}", inputName(1),
                     dimsStr(B.Dims)));
  if (!IsMatMul && attrInt("transA", 0) != 0)
    fail("attribute 'transA' = 1 is not supported: the rows of A are the frames of the batch, "
         "run one at a time");
  const bool TransB = !IsMatMul && attrInt("transB", 0) != 0;
  const float Alpha = IsMatMul ? 1.0f : attrFloat("alpha", 1.0f);
  const float Beta = IsMatMul ? 1.0f : attrFloat("beta", 1.0f);
  const int64_t K = A.Dims[1];
  const int64_t Out = TransB ? B.Dims[0] : B.Dims[1];
  if ((TransB ? B.Dims[1] : B.Dims[0]) != K)
    fail(fmt::format("weights '{}' have shape {}{}, which does not fit an input of {} features",
                     inputName(1), dimsStr(B.Dims), TransB ? " (transposed)" : "", K));

  Layer L;
  L.Kind = LayerKind::Fc;
  L.TypeName = "fc";
  L.Inputs = {A.Layer};
  L.In = shapeOf(A.Layer);
  L.Out = {uint32_t(Out), 1, 1};
  L.Weights.resize(size_t(Out * K));
  for (int64_t O = 0; O < Out; ++O)
    for (int64_t I = 0; I < K; ++I)
      L.Weights[size_t(O * K + I)] = Alpha * B.Floats[size_t(TransB ? O * K + I : I * Out + O)];
  L.Bias.assign(size_t(Out), 0.0f);
  L.HasBias = false;
  if (const OnnxTensor *C = IsMatMul ? nullptr : optionalConstant(2)) {
    // C broadcasts to [N, Out]: one value per output (or one for all). A C
    // with a row per frame would give each frame its own bias.
    const std::vector<int64_t> &D = C->Dims;
    bool PerOutput = C->Type == OnnxTensor::ElemType::Float && D.size() <= 2 &&
                     (D.size() < 2 || D[0] == 1) && (D.empty() || D.back() == 1 || D.back() == Out);
    if (!PerOutput)
      fail(fmt::format("bias '{}' of shape {} is not supported: only a float32 bias per output "
                       "([{}] or [1, {}]) or a scalar (each row of the batch would otherwise "
                       "get its own bias)",
                       inputName(2), dimsStr(D), Out, Out));
    const bool Scalar = C->Floats.size() == 1;
    for (int64_t O = 0; O < Out; ++O)
      L.Bias[size_t(O)] = Beta * C->Floats[Scalar ? 0 : size_t(O)];
    L.HasBias = true;
  }
  int Id = addLayer(std::move(L));
  defineActivation(0, Id, {A.Dims[0], Out});
}

//===-- Add, Relu, BatchNormalization ------------------------------------===//

void OnnxImporter::importAdd() {
  // 'broadcast' and 'axis' (and 'consumed_inputs') are from opsets before 7.
  checkAttributes({"axis", "broadcast", "consumed_inputs"});
  if (inputCount() != 2)
    fail("an Add needs two inputs");
  const OnnxValue &V0 = input(0), &V1 = input(1);
  if (V0.IsConst && V1.IsConst)
    fail("both inputs are constants; there is nothing to compute at run time");
  if (!V0.IsConst && !V1.IsConst) {
    if (V0.ChannelsLast != V1.ChannelsLast)
      fail(fmt::format("'{}' has its channels {} and '{}' {}: their elements do not correspond",
                       inputName(0), V0.ChannelsLast ? "last" : "first", inputName(1),
                       V1.ChannelsLast ? "last" : "first"));
    if (V0.Dims != V1.Dims)
      fail(fmt::format("inputs '{}' {} and '{}' {} differ in shape; two run-time tensors are "
                       "added only when their shapes are equal (no broadcasting)",
                       inputName(0), dimsStr(V0.Dims), inputName(1), dimsStr(V1.Dims)));
    Layer L;
    L.Kind = LayerKind::Add;
    L.TypeName = "add";
    L.Inputs = {V0.Layer, V1.Layer};
    L.In = L.Out = shapeOf(V0.Layer);
    int Id = addLayer(std::move(L));
    defineActivation(0, Id, V0.Dims);
    return;
  }
  importConstAffine("Add");
}

std::vector<float> OnnxImporter::perChannelConstant(size_t CstInput, const OnnxValue &X,
                                                    const std::string &Op) {
  const OnnxTensor &Cst = *input(CstInput).Const;
  const std::string CName = inputName(CstInput);
  if (Cst.Type != OnnxTensor::ElemType::Float)
    fail(fmt::format("constant '{}' must be float32", CName));
  const size_t R = X.Dims.size(), Q = Cst.Dims.size();
  int64_t Offset = int64_t(R) - int64_t(Q);
  if (Opset < 7 && attrInt("broadcast", 0) != 0 && attr("axis"))
    Offset = attrInt("axis", 0) < 0 ? attrInt("axis", 0) + int64_t(R) : attrInt("axis", 0);
  const size_t ChannelAxis = X.ChannelsLast ? R - 1 : R >= 2 ? 1 : 0;
  const int64_t C = R == 0 ? 1 : X.Dims[ChannelAxis];
  bool PerChannel = Offset >= 0 && size_t(Offset) + Q <= R;
  int64_t CStride = 0; // of the channel axis in the constant, 0 when broadcast
  for (size_t J = 0; PerChannel && J < Q; ++J) {
    size_t Axis = size_t(Offset) + J;
    if (Cst.Dims[J] == 1)
      continue;
    if (Axis == ChannelAxis && Cst.Dims[J] == C)
      CStride = product(Cst.Dims, J + 1, Q);
    else
      PerChannel = false;
  }
  if (!PerChannel)
    fail(fmt::format("constant '{}' of shape {} with {}: only a constant per channel (axis {}) "
                     "or a scalar can be applied by {}; a value per position would need a "
                     "second input",
                     CName, dimsStr(Cst.Dims), dimsStr(X.Dims), ChannelAxis, Op));
  std::vector<float> V;
  for (int64_t Ch = 0; Ch < C; ++Ch)
    V.push_back(Cst.Floats[size_t(Ch * CStride)]);
  return V;
}

void OnnxImporter::importConstAffine(const std::string &Op) {
  // One run-time input and a constant per channel (or one for all): y = a x
  // + b per channel, which a depthwise 1x1 conv computes; foldAffineConsts
  // later moves it into the conv or fc before it where it can (a bias add
  // into its bias, a scale into its weights and bias).
  const bool ConstFirst = input(0).IsConst;
  const OnnxValue &X = ConstFirst ? activation(1) : activation(0);
  const std::vector<float> K = perChannelConstant(ConstFirst ? 0 : 1, X, Op);
  // After a layernorm that feeds only this node: its gamma and beta.
  if (X.Layer >= 0 && G.Layers[size_t(X.Layer)].Kind == LayerKind::LayerNorm &&
      readers(inputName(ConstFirst ? 1 : 0)) == 1 &&
      !(ConstFirst && (Op == "Sub" || Op == "Div"))) {
    Layer &Ln = G.Layers[size_t(X.Layer)];
    for (size_t C = 0; C < K.size(); ++C) {
      if (Op == "Mul" || Op == "Div") {
        if (Op == "Div" && (K[C] == 0.0f || !std::isfinite(1.0f / K[C])))
          fail(fmt::format("division by {} (constant '{}')", K[C], inputName(1)));
        const float A = Op == "Mul" ? K[C] : 1.0f / K[C];
        Ln.Gamma[C] *= A;
        Ln.Beta[C] *= A;
      } else {
        Ln.Beta[C] += Op == "Add" ? K[C] : -K[C];
      }
    }
    defineAlias(0, X);
    return;
  }
  Layer L;
  L.Kind = LayerKind::Conv;
  L.TypeName = Op == "Add" || Op == "Sub" ? "add" : "mul";
  L.Inputs = {X.Layer};
  L.In = L.Out = shapeOf(X.Layer);
  L.Groups = unsigned(K.size());
  for (float V : K) {
    float A = 1.0f, B = 0.0f;
    if (Op == "Add")
      B = V;
    else if (Op == "Sub")
      ConstFirst ? (A = -1.0f, B = V) : (B = -V);
    else if (Op == "Mul")
      A = V;
    else if (ConstFirst)
      fail(fmt::format("'{}' divided by a map: a reciprocal of run-time values is not supported",
                       inputName(0)));
    else if (V == 0.0f || !std::isfinite(1.0f / V))
      fail(fmt::format("division by {} (constant '{}')", V, inputName(1)));
    else
      A = 1.0f / V;
    L.Weights.push_back(A);
    L.Bias.push_back(B);
  }
  int Id = addLayer(std::move(L));
  AffineConsts.insert(size_t(Id));
  defineActivation(0, Id, X.Dims);
}

void OnnxImporter::importRelu() {
  checkAttributes({"consumed_inputs"});
  const OnnxValue &X = activation(0);
  Layer L;
  L.Kind = LayerKind::Relu;
  L.TypeName = "relu";
  L.Inputs = {X.Layer};
  defineLike(std::move(L), X);
}

void OnnxImporter::importBatchNorm() {
  checkAttributes(
      {"consumed_inputs", "epsilon", "is_test", "momentum", "spatial", "training_mode"});
  if (attrInt("training_mode", 0) != 0)
    fail("attribute 'training_mode' = 1 is not supported: inference only (running statistics)");
  if (attrInt("spatial", 1) != 1)
    fail("attribute 'spatial' = 0 (statistics per position) is not supported");
  onlyFirstOutput("training mode's statistics; inference has one output");
  if (inputCount() != 5)
    fail("needs inputs X, scale, B, mean and var");
  const OnnxValue &X = activation(0);
  if (X.Dims.size() < 2)
    fail(fmt::format("input '{}' has shape {}; it needs N x C", inputName(0), dimsStr(X.Dims)));
  const int64_t C = X.Dims[1];
  std::vector<float> *Dest[4];
  Layer L;
  Dest[0] = &L.Gamma, Dest[1] = &L.Beta, Dest[2] = &L.Mean, Dest[3] = &L.Var;
  for (size_t I = 1; I <= 4; ++I) {
    const OnnxTensor &T = constant(I);
    if (T.Type != OnnxTensor::ElemType::Float || T.elems() != uint64_t(C))
      fail(fmt::format("'{}' must be {} float32 values (one per channel), got shape {}",
                       inputName(I), C, dimsStr(T.Dims)));
    *Dest[I - 1] = T.Floats;
  }
  for (size_t I = 0; I < L.Var.size(); ++I)
    if (!(L.Var[I] >= 0))
      fail(fmt::format("variance {} of channel {} is negative", L.Var[I], I));
  L.Eps = attrFloat("epsilon", 1e-5f);
  if (!(L.Eps > 0))
    fail(fmt::format("attribute 'epsilon' = {} must be positive", L.Eps));
  L.Kind = LayerKind::BatchNorm;
  L.TypeName = "batchnorm";
  L.Inputs = {X.Layer};
  // Over channels permuted (a depthwise conv after a shuffle, its batchnorm
  // a node of its own, as in an export of the YAML ShuffleNet v2): the
  // statistics of logical channel i go to physical channel Map[i], and the
  // permutation stays pending (prepareInputs).
  const std::vector<uint32_t> Map = X.ChanMap;
  if (!Map.empty())
    for (std::vector<float> *V : Dest)
      detail::permuteChannels(*V, Map);
  defineLike(std::move(L), X);
  Values[Node->output(0)].ChanMap = Map;
}

//===-- Concat, Flatten, Reshape, Softmax --------------------------------===//

void OnnxImporter::importConcat() {
  checkAttributes({"axis"});
  if (inputCount() < 1)
    fail("needs at least one input");
  const OnnxValue &First = activation(0);
  const int64_t R = int64_t(First.Dims.size());
  int64_t Axis = attrInt("axis", Opset < 4 ? 1 : INT64_MIN);
  if (Axis == INT64_MIN)
    fail("attribute 'axis' is required");
  if (Axis < 0)
    Axis += R;
  const int64_t ChannelAxis = R >= 2 ? 1 : 0;
  if (R == 0 || Axis != ChannelAxis)
    fail(fmt::format("attribute 'axis' = {} on inputs of shape {}: only a concatenation along "
                     "the channels (axis {}) is supported",
                     attrInt("axis", 1), dimsStr(First.Dims), ChannelAxis));
  if (inputCount() == 1) {
    defineAlias(0, First);
    return;
  }
  Layer L;
  L.Kind = LayerKind::Concat;
  L.TypeName = "concat";
  L.Inputs.clear();
  std::vector<int64_t> Dims = First.Dims;
  Dims[size_t(Axis)] = 0;
  for (size_t I = 0; I < inputCount(); ++I) {
    const OnnxValue &V = activation(I);
    bool Fits = V.Dims.size() == First.Dims.size();
    for (size_t A = 0; Fits && A < V.Dims.size(); ++A)
      Fits = A == size_t(Axis) || V.Dims[A] == First.Dims[A];
    if (!Fits)
      fail(fmt::format("inputs '{}' {} and '{}' {} differ in more than the channels", inputName(0),
                       dimsStr(First.Dims), inputName(I), dimsStr(V.Dims)));
    L.Inputs.push_back(V.Layer);
    Dims[size_t(Axis)] += V.Dims[size_t(Axis)];
  }
  L.In = shapeOf(First.Layer);
  L.Out = L.In;
  L.Out.C = uint32_t(Dims[size_t(Axis)]);
  // Inputs with a permutation pending (OnnxShuffle.cpp) leave it pending on
  // the concat, shifted to their part.
  std::vector<uint32_t> Map;
  bool AnyMap = false;
  for (size_t I = 0; I < inputCount(); ++I) {
    const OnnxValue &V = activation(I);
    const uint32_t Base = uint32_t(Map.size()), C = shapeOf(V.Layer).C;
    AnyMap |= V.chansPending();
    for (uint32_t Ch = 0; Ch < C; ++Ch)
      Map.push_back(Base + (V.chansPending() ? V.ChanMap[Ch] : Ch));
  }
  int Id = addLayer(std::move(L));
  defineActivation(0, Id, std::move(Dims));
  if (AnyMap)
    Values[Node->output(0)].ChanMap = std::move(Map);
}

void OnnxImporter::flattenTo(const OnnxValue &X, std::vector<int64_t> Dims) {
  assert(Dims.size() == 2 && "a flatten gives [N, K]");
  if (uint64_t(Dims[0]) != Result.Frames)
    fail(fmt::format("{} to {} is not supported: it does not keep the batch of {} on axis 0, "
                     "and the accelerator runs the frames of a batch one at a time",
                     dimsStr(X.Dims), dimsStr(Dims), Result.Frames));
  if (frameShape(Dims) == shapeOf(X.Layer)) {
    OnnxValue V = X;
    V.Dims = std::move(Dims);
    defineAlias(0, V);
    return;
  }
  Layer L;
  L.Kind = LayerKind::Flatten;
  L.TypeName = "flatten";
  L.Inputs = {X.Layer};
  L.In = shapeOf(X.Layer);
  L.Out = frameShape(Dims);
  int Id = addLayer(std::move(L));
  defineActivation(0, Id, std::move(Dims));
}

void OnnxImporter::importFlatten() {
  checkAttributes({"axis"});
  const OnnxValue &X = activation(0);
  const int64_t R = int64_t(X.Dims.size());
  int64_t Axis = attrInt("axis", 1);
  if (Axis < 0)
    Axis += R;
  if (Axis < 0 || Axis > R)
    fail(
        fmt::format("attribute 'axis' = {} is outside the input's rank {}", attrInt("axis", 1), R));
  flattenTo(X, {product(X.Dims, 0, size_t(Axis)), product(X.Dims, size_t(Axis), size_t(R))});
}

void OnnxImporter::importReshape() {
  checkAttributes({"allowzero", "shape"});
  const OnnxValue &X = activation(0);
  std::vector<int64_t> Target;
  if (Opset < 5) {
    Target = attrInts("shape", {});
  } else {
    const OnnxTensor &S = constant(1);
    if (S.Type != OnnxTensor::ElemType::Int64 || S.Dims.size() != 1)
      fail(fmt::format("shape '{}' must be a 1-D int64 tensor", inputName(1)));
    Target = S.Ints;
  }
  const bool AllowZero = attrInt("allowzero", 0) != 0;
  std::vector<int64_t> Dims = Target;
  int64_t Known = 1, Infer = -1;
  for (size_t I = 0; I < Dims.size(); ++I) {
    if (Dims[I] == 0 && !AllowZero) {
      if (I >= X.Dims.size())
        fail(fmt::format("shape {}: a 0 at axis {} copies an axis the input {} lacks",
                         dimsStr(Target), I, dimsStr(X.Dims)));
      Dims[I] = X.Dims[I];
    }
    if (Dims[I] == -1 && Infer < 0)
      Infer = int64_t(I);
    else if (Dims[I] < 1)
      fail(fmt::format("shape {} is not supported for input {}", dimsStr(Target), dimsStr(X.Dims)));
    else
      Known = snow::saturatingProductSigned({Known, Dims[I]});
  }
  const int64_t Total = product(X.Dims, 0, X.Dims.size());
  if (Infer >= 0)
    Dims[size_t(Infer)] = Known > 0 && Total % Known == 0 ? Total / Known : -1;
  if (product(Dims, 0, Dims.size()) != Total || (Infer >= 0 && Dims[size_t(Infer)] < 1))
    fail(fmt::format("shape {} does not fit the {} values of input {}", dimsStr(Target), Total,
                     dimsStr(X.Dims)));
  // The channel shuffle's reshapes move no data (OnnxShuffle.cpp); any
  // other reshape needs the channels in order.
  if (reshapeChannels(X, Dims))
    return;
  if (X.chansPending())
    materialize(inputName(0));
  if (Dims.size() == 2) {
    flattenTo(X, std::move(Dims));
    return;
  }
  if (framesOf(Dims) == Result.Frames && frameShape(Dims) == shapeOf(X.Layer)) {
    OnnxValue V = X;
    V.Dims = std::move(Dims);
    defineAlias(0, V);
    return;
  }
  fail(fmt::format("a reshape of {} to {} is not supported: only to 2-D [N, K] (a flatten that "
                   "keeps the batch axis) or to the same channels, height and width",
                   dimsStr(X.Dims), dimsStr(Dims)));
}

void OnnxImporter::importSoftmax() {
  checkAttributes({"axis"});
  const OnnxValue &X = activation(0);
  const int64_t R = int64_t(X.Dims.size());
  int64_t Axis = attrInt("axis", Opset < 13 ? 1 : -1);
  if (Axis < 0)
    Axis += R;
  if (R == 0 || Axis < 0 || Axis >= R)
    fail(fmt::format("attribute 'axis' = {} is outside the input's rank {}",
                     attrInt("axis", Opset < 13 ? 1 : -1), R));
  // Before opset 13 a softmax normalizes over all axes from 'axis' on; from
  // 13 over 'axis' alone. The host normalizes within each frame (the batch is
  // axis 0, and frames run one at a time): over the frame's whole vector, or
  // over one axis of it (axes of size 1 do not matter either way).
  bool WholeFrame = true;
  for (int64_t A = 0; A < R; ++A) {
    bool Reduced = Opset < 13 ? A >= Axis : A == Axis;
    bool InFrame = R >= 2 ? A >= 1 : true;
    if (Reduced != InFrame && X.Dims[size_t(A)] != 1)
      WholeFrame = false;
  }
  if (!WholeFrame && (R < 2 || (Axis == 0 && X.Dims[0] != 1)))
    fail(fmt::format("attribute 'axis' = {} (opset {}) on shape {}: a softmax over the batch "
                     "axis 0 is not supported: the accelerator runs the frames of a batch one "
                     "at a time",
                     attrInt("axis", Opset < 13 ? 1 : -1), Opset, dimsStr(X.Dims)));
  if (Node->output(0) != OutputName)
    fail("a softmax runs on the host after the accelerator, so it must produce the graph "
         "output");
  int Src = X.Layer;
  if (!WholeFrame) {
    // Groups of Count values Inner apart in the frame's row-major (CHW)
    // order, which is the ONNX dims' order without the batch.
    uint64_t Count = 1, Inner = 1;
    for (int64_t A = std::max<int64_t>(Axis, 1); A < R; ++A)
      (Opset < 13 || A == Axis ? Count : Inner) *= uint64_t(X.Dims[size_t(A)]);
    G.SoftmaxCount = unsigned(Count);
    G.SoftmaxInner = unsigned(Inner);
  } else if (shapeOf(Src).H != 1 || shapeOf(Src).W != 1) {
    Layer F;
    F.Kind = LayerKind::Flatten;
    F.TypeName = "flatten";
    F.Inputs = {Src};
    F.In = shapeOf(Src);
    F.Out = {uint32_t(F.In.elems()), 1, 1};
    Src = addLayer(std::move(F), "_flatten");
  }
  Layer L;
  L.Kind = LayerKind::Softmax;
  L.TypeName = "softmax";
  L.Inputs = {Src};
  L.In = L.Out = shapeOf(Src);
  int Id = addLayer(std::move(L));
  // The layer is a vector; the ONNX value keeps the input's dims.
  OnnxValue V;
  V.Layer = Id;
  V.Dims = X.Dims;
  defineAlias(0, V);
}

//===-- Identity, Dropout, Constant --------------------------------------===//

void OnnxImporter::importIdentity(bool IsDropout) {
  if (IsDropout) {
    checkAttributes({"consumed_inputs", "is_test", "ratio", "seed"});
    onlyFirstOutput("the mask of training mode");
    if (const onnx::AttributeProto *A = attr("is_test"); A && A->i() == 0)
      fail("attribute 'is_test' = 0 (training mode) is not supported: inference only");
    if (const OnnxTensor *T = optionalConstant(2)) {
      bool Training = T->Type == OnnxTensor::ElemType::Int64
                          ? llvm::any_of(T->Ints, [](int64_t V) { return V != 0; })
                          : llvm::any_of(T->Floats, [](float V) { return V != 0; });
      if (Training)
        fail(fmt::format("input '{}' (training_mode) is true: only inference, where dropout "
                         "passes its input through, is supported",
                         inputName(2)));
    }
  } else {
    checkAttributes({});
  }
  defineAlias(0, input(0, /*AcceptPad=*/true));
}

void OnnxImporter::importConstant() {
  checkAttributes({"value", "value_float", "value_floats", "value_int", "value_ints"});
  if (Node->attribute_size() != 1)
    fail("needs exactly one of the attributes value, value_float, value_floats, value_int, "
         "value_ints");
  const onnx::AttributeProto &A = Node->attribute(0);
  OnnxTensor T;
  if (A.name() == "value") {
    T = tensorFromProto(A.t(), what() + ": attribute 'value'");
  } else if (A.name() == "value_float" || A.name() == "value_floats") {
    if (A.name() == "value_float")
      T.Floats = {A.f()};
    else
      T.Floats.assign(A.floats().begin(), A.floats().end());
    if (A.name() == "value_floats")
      T.Dims = {int64_t(T.Floats.size())};
  } else {
    T.Type = OnnxTensor::ElemType::Int64;
    if (A.name() == "value_int")
      T.Ints = {A.i()};
    else
      T.Ints.assign(A.ints().begin(), A.ints().end());
    if (A.name() == "value_ints")
      T.Dims = {int64_t(T.Ints.size())};
  }
  defineConst(0, std::move(T));
}
