//===- OnnxImporter.h - The ONNX importer, shared by its files -*- C++ -*-===//
//
// Private to compiler/ir. The importer is split like the YAML parser:
// OnnxImport.cpp walks the graph (inputs, constants, liveness) and holds the
// API entry points; OnnxNode.cpp reads the current node's attributes and
// inputs and defines its outputs; OnnxWindows.cpp, OnnxPad.cpp and OnnxOps.cpp
// hold one function per operator with its attributes and shape rule;
// OnnxPasses.cpp
// the passes that need the whole graph; OnnxTensor.cpp converts tensors to
// and from TensorProto. OnnxExport.cpp is the reverse direction.
//
// Inside the importer an error is a thrown OnnxError, converted to
// llvm::Error at the API boundary, as in the YAML parser: each operator is a
// long chain of checks, and threading Expected through them would bury the
// rules in plumbing.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_IR_ONNXIMPORTER_H
#define SNOW_IR_ONNXIMPORTER_H

#include "snow/ir/Onnx.h"

#include <map>
#include <onnx/onnx_pb.h>
#include <set>
#include <string>
#include <vector>

namespace snow::ir::detail {

struct OnnxError {
  std::string Msg;
};

/// The YAML front end's limits, for the same reasons: a dimension beyond
/// this is certainly a mistake, and products of sizes stay far from overflow.
constexpr int64_t OnnxMaxDim = 65536;
/// The newest default-domain opset accepted (ONNX 1.17 defines 1..22).
constexpr int64_t OnnxMaxOpset = 22;
constexpr uint64_t OnnxMaxWeights = uint64_t(1) << 28;

/// "[2, 3, 4]", the form dims take in messages.
std::string dimsStr(const std::vector<int64_t> &Dims);

/// TensorProto -> OnnxTensor. What names the tensor in messages; errors are
/// thrown as OnnxError without a file prefix.
OnnxTensor tensorFromProto(const onnx::TensorProto &P, const std::string &What);
void tensorToProto(const OnnxTensor &T, onnx::TensorProto &P);

/// How a tensor of ONNX dims maps onto the accelerator: axis 0 of rank >= 2
/// is the batch (frames), axis 1 the channels; rank 3 is C x 1 x L, rank 4
/// C x H x W, higher ranks fold their trailing axes into W (only operators
/// that treat every position alike accept them). Rank 0 and 1 are one frame.
uint64_t framesOf(const std::vector<int64_t> &Dims);
Shape frameShape(const std::vector<int64_t> &Dims);

/// A value between nodes: an activation (the output of a layer, or the graph
/// input when Layer is -1) or a constant (an initializer, a Constant node or
/// a --const binding).
///
/// The output of a Pad that every reader takes as its own padding is an
/// activation with pads pending: Layer's frame with PadT / PadB / PadL /
/// PadR zeros around it (Dims are the padded dims), computed by no layer
/// (OnnxPad.cpp). PadNode names the Pad for messages.
struct OnnxValue {
  bool IsConst = false;
  int Layer = -1;
  std::vector<int64_t> Dims;
  const OnnxTensor *Const = nullptr;
  unsigned PadT = 0, PadB = 0, PadL = 0, PadR = 0;
  std::string PadNode;
  bool padPending() const { return !PadNode.empty(); }
  /// Channels pending (OnnxShuffle.cpp): logical channel I of the value is
  /// channel ChanMap[I] of Layer's output. Empty: the identity. A channel
  /// shuffle and a Slice or Split of channels move no data until a reader
  /// needs them in order: a conv takes them into its weights, any other
  /// reader gets a 1x1 selection conv (materialize()).
  std::vector<uint32_t> ChanMap;
  /// The middle of a channel shuffle: a 5-D [N, G, C/G, H, W] whose axes 1
  /// and 2 factor the channels (logical channel a * Dims[2] + b). Only a
  /// Transpose of those two axes and the Reshape back may read it.
  bool ChanFactored = false;
  bool chansPending() const { return !ChanMap.empty(); }
  /// Part way through PyTorch's GELU, x * 0.5 * (1 + erf(x / sqrt 2))
  /// (OnnxActivations.cpp): 1 x / sqrt 2, 2 its erf, 3 one plus that, 4 x
  /// times that, all of Layer's x. Only the next node of the chain may read it.
  uint8_t GeluStep = 0;
  /// Dims are [N, H, W, C] of Layer's C x H x W output: a Transpose with
  /// perm [0, 2, 3, 1] moved the channels last (ConvNeXt's blocks), and only
  /// what treats them as channels may read it (OnnxLayerNorm.cpp).
  bool ChannelsLast = false;
  /// Part way through PyTorch's layer_norm over the channels of a
  /// channels-last Layer: 1 its mean (ReduceMean), 2 x minus that (Sub), 3
  /// its square (Pow), 4 their mean, 5 plus LnEps (Add), 6 the root (Sqrt);
  /// the Div of 2 by 6 is the LayerNorm layer.
  uint8_t LnStep = 0;
  float LnEps = 0;
};

class OnnxImporter {
public:
  OnnxImporter(const onnx::ModelProto &M, std::string File, const OnnxImportOptions &Opts);
  OnnxModel run();

private:
  const onnx::ModelProto &Model;
  const onnx::GraphProto &GP;
  std::string File;
  const OnnxImportOptions &Opts;
  int64_t Opset = 0;
  /// The data input's batch is symbolic ("N"); it is read as 1.
  bool SymbolicBatch = false;
  OnnxModel Result;
  Graph &G;

  std::map<std::string, OnnxTensor> Consts; ///< Owns every constant by name.
  std::map<std::string, OnnxValue> Values;
  std::set<std::string> LayerNames;
  /// Layers created for an Add, Sub, Mul or Div by a per-channel constant:
  /// foldable into the conv or fc before them (foldAffineConsts).
  std::set<size_t> AffineConsts;
  std::string OutputName;
  std::vector<bool> Live; ///< Per node: whether the graph output depends on it.

  // The node being imported, for messages and layer locations.
  const onnx::NodeProto *Node = nullptr;
  int NodeIndex = -1;

  // Graph walking (OnnxImport.cpp) and whole-graph passes (OnnxPasses.cpp).
  void readOpset();
  void checkSingleAssignment() const;
  void readConstants();
  void readDataInput();
  std::vector<int64_t> runtimeInputDims(const onnx::ValueInfoProto &In);
  void checkConstShapes() const;
  std::vector<bool> liveNodes() const;
  void importNode(const onnx::NodeProto &N);
  void importOperator(const std::string &Op);
  void foldAffineConsts();
  void lowerUnfoldableBatchNorms();
  void nestConcats();
  void addCopyIfEmpty();
  void checkOutput();

  // Shared by the operators (OnnxNode.cpp).
  [[noreturn]] void fail(const std::string &Msg) const;
  std::string what() const;
  void checkAttributes(std::initializer_list<const char *> Known) const;
  const onnx::AttributeProto *attr(const char *Name) const;
  int64_t attrInt(const char *Name, int64_t Default) const;
  float attrFloat(const char *Name, float Default) const;
  std::string attrString(const char *Name, const std::string &Default) const;
  std::vector<int64_t> attrInts(const char *Name, const std::vector<int64_t> &Default) const;
  size_t inputCount() const;
  /// Input I; one with a Pad pending is refused unless AcceptPad.
  const OnnxValue &input(size_t I, bool AcceptPad = false) const;
  const OnnxValue &activation(size_t I, bool AcceptPad = false) const;
  const OnnxTensor &constant(size_t I) const;
  const OnnxTensor *optionalConstant(size_t I) const;
  std::string inputName(size_t I) const;
  void onlyFirstOutput(const char *Why) const;
  void defineActivation(size_t Output, int LayerIndex, std::vector<int64_t> Dims);
  /// Appends L, a layer whose output has value X's shape (its In and Out are
  /// set here, its inputs are the caller's), as output 0 with X's dims.
  void defineLike(Layer L, const OnnxValue &X);
  void defineAlias(size_t Output, const OnnxValue &V);
  void defineConst(size_t Output, OnnxTensor T);
  /// Appends L (named after the node, located at it) and returns its index.
  int addLayer(Layer L, const std::string &Suffix = "");
  Shape shapeOf(int LayerIndex) const;
  std::string uniqueName(const std::string &Want);

  // One function per operator (OnnxWindows.cpp, OnnxPad.cpp, OnnxOps.cpp).
  struct Window {
    unsigned KH = 1, KW = 1, SH = 1, SW = 1, PadT = 0, PadB = 0, PadL = 0, PadR = 0;
    bool CeilMode = false;
  };
  Window window(const OnnxValue &X, const std::vector<int64_t> &KernelFromWeights, bool IsConv);
  void checkWindowFits(const Window &W, const Shape &In, bool IsPool) const;
  void importConv();
  void importPool(bool IsMax);
  void importGlobalAveragePool();
  void importReduceMean();
  /// A GlobalAvgPool layer over X; returns its index.
  int addGlobalAvgPool(const OnnxValue &X);
  void importPad();
  /// Clip, Sigmoid, HardSigmoid, HardSwish, Tanh (OnnxActivations.cpp).
  void importActivation(const std::string &Op);
  /// Mul: x * sigmoid(x) or x * hardsigmoid(x), x * s per channel, a map
  /// times a constant, two maps of one shape.
  void importMul();
  /// Pow of a map by a constant: -0.5 the rsqrt table, 2 a square (mul).
  void importPow();
  /// The node's output as the Mul layer A * B (two maps of one shape).
  void defineProduct(const OnnxValue &A, const OnnxValue &B);
  /// Add, Sub, Mul or Div of a run-time value and a constant per channel or
  /// scalar: a depthwise 1x1 conv (a x + b), folded later where it can be.
  void importConstAffine(const std::string &Op);
  /// The constant input CstInput applied to X as one value per channel of
  /// X (a scalar broadcast to all); refuses anything else, naming Op.
  std::vector<float> perChannelConstant(size_t CstInput, const OnnxValue &X, const std::string &Op);
  /// One node of PyTorch's GELU chain (Div, Erf, Add, Mul, Mul); true if it
  /// was one (isGeluStep).
  bool isGeluStep(const std::string &Op) const;
  void importGeluStep(const std::string &Op);
  /// One node of PyTorch's layer_norm over the channels of a channels-last
  /// value (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div), or ONNX's
  /// LayerNormalization; true if it is one (OnnxLayerNorm.cpp).
  bool isLayerNormStep(const std::string &Op) const;
  void importLayerNormStep(const std::string &Op);
  /// MatMul of a channels-last [N, H, W, C] by a constant [C, K]: a 1x1 conv.
  void importChannelsLastMatMul();
  /// Transpose between [N, C, H, W] and channels-last [N, H, W, C]; false
  /// for any other perm.
  bool transposeChannelsLast(const OnnxValue &X, const std::vector<int64_t> &Perm);
  /// Refuses Op reading the channels-last or layer_norm-step value V.
  void checkChannelsLastReader(const std::string &Op, const std::string &Name, const OnnxValue &V,
                               int Input) const;
  /// Node inputs and graph outputs that read the value called Name.
  unsigned readers(const std::string &Name) const;
  /// Whether every reader of the Pad's output takes its zeros as its own
  /// padding (a Conv or AveragePool, a MaxPool on non-negative values).
  bool padFoldsIntoReaders(int PadInput) const;
  /// Adds the pads pending on X (a Pad before the window's operator) to W.
  void takePendingPads(const OnnxValue &X, Window &W) const;
  /// Whether every value of LayerIndex's output is >= 0 in every run (a
  /// relu, or pooling / concat / add of such values).
  bool nonNegative(int LayerIndex) const;
  void importGemm(bool IsMatMul);
  void importAdd();
  void importRelu();
  void importBatchNorm();
  void importConcat();
  void importFlatten();
  void importReshape();
  void importSoftmax();
  void importIdentity(bool IsDropout);
  void importConstant();
  /// The flatten of X to Dims ([N, K]): an alias when the frame shape does
  /// not change, else a Flatten layer.
  void flattenTo(const OnnxValue &X, std::vector<int64_t> Dims);

  // Channels moved without a layer (OnnxShuffle.cpp).
  /// Before the node runs: every input with channels pending that its
  /// operator cannot take is materialized; a factored value is refused.
  void prepareInputs(const onnx::NodeProto &N);
  /// Replaces the value called Name (channels pending) by a layer that
  /// computes it: a 1x1 conv with a 0/1 matrix, its channels in their
  /// logical order.
  void materialize(const std::string &Name);
  /// Concats split by the channels each reader uses (ConcatSplit.cpp); the
  /// new layers' names join LayerNames.
  void splitConcatsByReader();
  /// Whether every reader of the value called Name would take its channels
  /// with an order pending without a layer of its own (not the graph output).
  bool readersTakeChannels(const std::string &Name) const;
  /// After the node: a graph output with channels pending is materialized.
  void materializeOutputs(const onnx::NodeProto &N);
  /// Reshape to or from the channel shuffle's 5-D form; false when the
  /// reshape is not one.
  bool reshapeChannels(const OnnxValue &X, const std::vector<int64_t> &Dims);
  void importTranspose();
  void importSlice();
  void importSplit();
  /// A value whose logical channels Sel (indices into X's logical channels)
  /// are taken from X, with Dims.
  OnnxValue selectChannels(const OnnxValue &X, const std::vector<uint32_t> &Sel,
                           std::vector<int64_t> Dims) const;
  /// A Conv reading X with channels pending: L (built for X's logical
  /// channels, L.In already X's layer's shape) takes the order into its
  /// weights. A depthwise conv over a permutation computes the physical
  /// channels and leaves the order pending on its output (OutMap). False
  /// when the conv can do neither.
  bool convWeightsFollow(const OnnxValue &X, Layer &L, std::vector<uint32_t> &OutMap) const;
  /// Whether a Conv node (group, weights' output channels) can read X with
  /// channels pending (convWeightsFollow).
  bool convTakesChannels(const onnx::NodeProto &N, const OnnxValue &X) const;

  // Integer arithmetic on shapes, folded to constants (OnnxConstFold.cpp).
  void importShape();
  void importGather();
  /// Add, Sub, Mul, Div of constants.
  void foldArithmetic(const std::string &Op);
};

} // namespace snow::ir::detail

#endif
