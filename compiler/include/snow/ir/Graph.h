//===- Graph.h - The model graph IR shared by snowc and snowref ----*- C++ -*-===//
//
// A model as read from YAML: layers in topological order with inferred shapes,
// float weights, and the fixed-point formats chosen by the quantization rule
// (docs/fixed-point.md). Both the compiler and the reference executor start
// from this IR; nothing here knows about the hardware mapping.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_IR_GRAPH_H
#define SNOW_IR_GRAPH_H

#include "snow/support/Rng.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace snow::ir {

/// Where a layer (or key) came from, for messages: "models/tiny.yaml:7".
struct SourceLoc {
  std::string File;
  unsigned Line = 0;
  std::string str() const;
};

/// Seeded weights not drawn yet (loadModel with SeededValues::Deferred):
/// value I, in OIHW order, is float(uniform(-Bound, Bound)), the I-th draw of
/// the sequence from Start, exactly what seedWeights stores; once
/// canonicalize() folded a batchnorm into the layer, float(double(value) *
/// Scale[I / PerChannel]) (the same rounding the fold applies to stored
/// weights). A compiler draws the values where it uses them (calibration's
/// float conv, the weight image) and never holds a model's floats (VGG-16:
/// 552 MB); SplitMix64 skips to any draw in O(1).
struct SeededWeights {
  snow::Rng Start{0};
  double Bound = 0;
  uint64_t PerChannel = 0;       ///< Weights per output channel.
  uint32_t Channels = 0;         ///< Output channels.
  std::vector<double> Scale;     ///< Per output channel; empty: none.
  std::vector<float> ChannelMax; ///< Largest |value| of each output channel.
  uint64_t size() const { return PerChannel * Channels; }
  /// Values [Begin, Begin + N) into Out.
  void draw(uint64_t Begin, uint64_t N, float *Out) const;
  /// All values, drawn on several threads, into Out or a new vector.
  void drawAll(float *Out) const;
  std::vector<float> drawAll() const;
  float maxAbs() const;
};

struct Shape {
  uint32_t C = 0, H = 0, W = 0;
  uint64_t elems() const { return uint64_t(C) * H * W; }
  bool operator==(const Shape &) const = default;
};

/// Layer kinds as written in a model. canonicalize() rewrites a graph so that
/// only Conv, MaxPool, AvgPool, Concat, Add, Mul and Relu remain (docs/model-format.md,
/// "Canonical form"): BatchNorm is folded into its conv, Fc becomes a conv
/// whose kernel covers the whole input, GlobalAvgPool an AvgPool, Flatten a
/// view, Softmax a flag for the host, and ReLU / Add are fused into the
/// producing conv where that conv feeds nothing else.
enum class LayerKind {
  Conv,
  MaxPool,
  AvgPool,
  GlobalAvgPool,
  Fc,
  Concat,
  Add,
  /// The element-wise product of two maps of one shape (vpre, vmul, vwb):
  /// y = sat16(round(a * b >> (InFrac + WFrac - OutFrac))), WFrac b's format.
  Mul,
  Relu,
  BatchNorm,
  /// Normalises the C values of each position to mean 0 and variance 1
  /// (ConvNeXt's LayerNorm over channels), then gamma * y + beta;
  /// canonicalize() expands it into convs, products and an rsqrt table
  /// (docs/model-format.md, "Canonical form").
  LayerNorm,
  Flatten,
  Softmax,
  /// An element-wise function (Layer::Activation); canonicalize() fuses it
  /// into the conv before it.
  Activation,
  /// Channels [SliceBegin, SliceBegin + Out.C) of its input, a view: made
  /// by canonicalize() when it merges sibling convs (docs/model-format.md,
  /// "Canonical form"), each former sibling's readers read its slice.
  Slice
};
const char *kindName(LayerKind K);

/// Element-wise functions of the post-processing table (vwb's lut, vlut):
/// any function of one value, tabulated per layer by quantize()
/// (docs/fixed-point.md, "Activation tables").
enum class Act : uint8_t { None, Clip, Sigmoid, HardSigmoid, HardSwish, Silu, Gelu, Tanh, Rsqrt };
/// The model-format name ("relu6" for Clip(0, 6), "clip", "sigmoid", ...).
const char *actName(Act A, float P0 = 0, float P1 = 0);
/// The function's value at X, in double precision (P0, P1: Clip's min and
/// max, HardSigmoid's alpha and beta).
double evalAct(Act A, float P0, float P1, double X);
/// Whether K may remain after canonicalize() (what the compiler must handle).
bool isCanonicalKind(LayerKind K);

struct Layer {
  std::string Name;
  LayerKind Kind = LayerKind::Conv;
  SourceLoc Loc;
  /// Producing layers (indices into Graph::Layers, -1 = the graph input).
  /// One entry except for Concat and Add. In is the shape of Inputs[0].
  std::vector<int> Inputs = {-1};
  int input() const { return Inputs.front(); }
  Shape In, Out;
  /// What the user wrote ("fc", "global_avgpool", ...) for reports; Kind may
  /// have changed in canonicalize().
  std::string TypeName;

  // Window geometry (conv and pooling). Pads are top, bottom, left, right.
  unsigned KH = 1, KW = 1, SH = 1, SW = 1;
  unsigned PadT = 0, PadB = 0, PadL = 0, PadR = 0;
  bool CeilMode = false;
  bool Relu = false;
  /// Conv (fused) or Activation layer: the function applied after the
  /// writeback's rounding (and any residual add), and its parameters.
  Act Activation = Act::None;
  float ActP0 = 0, ActP1 = 0;

  // Conv parameters. Weights are OIHW (PyTorch order, I = In.C / Groups),
  // Bias has Out.C entries. Fc as written: Weights (Out.C, In.elems()).
  unsigned Groups = 1;
  std::vector<float> Weights, Bias;
  /// Set instead of Weights while seeded weights are deferred; the tools
  /// that run the float model or export it call materializeWeights first.
  std::optional<SeededWeights> Seeded;
  /// Out.C * (In.C / Groups) * KH * KW as held: Weights' size, or Seeded's.
  uint64_t heldWeights() const { return Seeded ? Seeded->size() : Weights.size(); }
  /// Whether quantize() leaves QWeights empty for the weight packer to draw
  /// (ir::quantizedWeights): a dense conv's deferred weights. Grouped ones
  /// are few and packed by a rule per group, so quantize() draws them.
  bool packerDrawsWeights() const { return Seeded && Groups == 1; }
  /// A depthwise 1x1 conv whose weights are another layer's output, read at
  /// run time (squeeze-and-excitation's per-channel scaling, x * s): Inputs
  /// is {x, s}, s has In.C x 1 x 1 values, weight c is s's value c and its
  /// format s's. Weights / Bias hold zeros (shapes only).
  bool DynamicWeights = false;
  /// False for `bias: false` (Bias then holds zeros, so consumers need no
  /// special case); only params() looks at it. A batchnorm folded into the
  /// layer gives it a real bias, so canonicalize() sets it.
  bool HasBias = true;
  /// Conv with a fused residual add: the other input of the add (a layer
  /// index, or -1 for the graph input) and its format. HasResidual is false
  /// otherwise.
  bool HasResidual = false;
  int Residual = -1;
  int ResFrac = 8;

  /// Slice: the first channel of the input it views.
  unsigned SliceBegin = 0;

  // BatchNorm as written (folded away by canonicalize()); LayerNorm's Gamma,
  // Beta and Eps.
  std::vector<float> Gamma, Beta, Mean, Var;
  float Eps = 1e-5f;

  // AvgPool: y = sat16((sum * AvgMult + 2^(AvgShift-1)) >> AvgShift), chosen
  // by quantize() from the window size (docs/fixed-point.md).
  unsigned AvgMult = 0, AvgShift = 0;
  /// Set by canonicalize(), not by a model: a depthwise conv whose
  /// writeback may also average its output in PoolBlock x PoolBlock blocks
  /// for the average pool HostedPool (that layer's index), which then runs
  /// no code of its own (its PoolHost: the conv's index); 0 and -1: none.
  /// The compiler decides whether it does (compiler::hostBlock).
  unsigned PoolBlock = 0;
  int HostedPool = -1, PoolHost = -1;

  // Fixed-point formats (number of fraction bits) chosen by quantize().
  int InFrac = 8, OutFrac = 8, WFrac = 0, BFrac = 0;
  std::vector<int16_t> QWeights, QBias; ///< Same order as Weights / Bias.
  /// With an Activation: the format of the value before it (what the
  /// accumulator is rounded to), and the table from that format to OutFrac
  /// (isa::LutEntries values, built by quantize()).
  int PreFrac = 8;
  std::vector<int16_t> QLut;
  /// The format the accumulator is rounded to: PreFrac before an
  /// activation, else OutFrac.
  int writebackFrac() const { return Activation == Act::None ? OutFrac : PreFrac; }

  /// Conv: Out.elems() * (In.C / Groups) * KH * KW; Fc: Out.C * In.elems();
  /// everything else 0 (docs/model-format.md states the convention).
  uint64_t macs() const;
  /// A layer that only copies channels (isa::isChannelCopyType: a selection,
  /// or a YAML `shuffle` or `slice` computed as one).
  bool isChannelCopy() const;
  /// macs(), 0 for a channel copy: the network's work, what utilization and
  /// G-ops/s count (a copy's MACs are the array's time, not the network's).
  uint64_t usefulMacs() const { return isChannelCopy() ? 0 : macs(); }
  /// Weights + biases (none with `bias: false`); BatchNorm 2 per channel (γ, β;
  /// the running statistics are buffers). As PyTorch's parameter count.
  uint64_t params() const;
};

/// Makes L, whose Inputs are {x, s} and In x's shape, the per-channel
/// product x * s (DynamicWeights): a depthwise 1x1 conv without bias whose
/// weights are s at run time. The YAML `scale` and ONNX's Mul build it.
void makeRunTimeScale(Layer &L);

/// Makes L, whose Inputs and In are set, the 1x1 conv whose output channel I
/// is input channel Rows[I] (a *selection*: 0/1 weights, no bias, grouped
/// where the matrix is block diagonal): what the ONNX importer builds for
/// channels moved without a conv to take them, and the YAML `shuffle` and
/// `slice` are. Exact: one product by 1.0 a sum.
void makeSelection(Layer &L, const std::vector<uint32_t> &Rows);

struct Graph {
  std::string Name;
  SourceLoc Loc;
  std::string InputName = "data";
  Shape Input;
  int InputFrac = 8;
  std::vector<Layer> Layers; ///< Topological order; the last one is the output.
  /// The last layer was a softmax, run on the host after the accelerator.
  bool HostSoftmax = false;
  /// Its axis in the output frame (CHW order): it normalizes groups of
  /// SoftmaxCount values SoftmaxInner apart (the frame holds
  /// elems / (SoftmaxCount * SoftmaxInner) x SoftmaxInner such groups);
  /// SoftmaxCount 0 means the whole frame, a classifier's vector of scores.
  unsigned SoftmaxCount = 0, SoftmaxInner = 1;
  const Layer &output() const { return Layers.back(); }
  /// The layers' MACs (channel copies included: what the array computes).
  uint64_t macs() const;
  /// The network's MACs, channel copies left out (Layer::usefulMacs).
  uint64_t usefulMacs() const;
  uint64_t params() const;
  /// params() without the channel copies' 0/1 weights, which no network
  /// learns (ShuffleNet v2 as written: torchvision's 2,278,604).
  uint64_t usefulParams() const;
};

/// Whether loadModel draws seeded weights into Layer::Weights (Eager) or
/// leaves them to be drawn where used (Deferred, Layer::Seeded): a compiler
/// that only quantizes and packs them need not hold them.
enum class SeededValues { Eager, Deferred };

/// Reads a model YAML file: validates keys and shapes, infers output shapes,
/// creates seeded or .npy weights. Errors carry file:line.
llvm::Expected<Graph> loadModel(const std::string &Path, SeededValues Values = SeededValues::Eager);
llvm::Expected<Graph> parseModel(const std::string &Text, const std::string &File,
                                 SeededValues Values = SeededValues::Eager);

/// Draws L's deferred weights into L.Weights (nothing when they are held).
void materializeWeights(Layer &L);
void materializeWeights(Graph &G);

/// What canonicalize() may assume of the formats chosen after it.
struct CanonOptions {
  /// Every activation will have the hardware's one format (quantize(G,
  /// Frac), --uniform-format): a conv that writes into a concat may then
  /// merge with its siblings too (docs/model-format.md, step 8), which
  /// costs no precision when there is one format. snowc and snowref must
  /// agree on it, as they do on the formats.
  bool OneFormat = false;
  /// YAML's shuffle and slice layers are folded into the convs that read
  /// them (docs/model-format.md, step 4b). Off only to compare the two
  /// forms (tests); snowc and snowref always fold.
  bool FoldChannelMoves = true;
};

/// Rewrites G into canonical form (see LayerKind). Errors name the layer and
/// file:line (e.g. a batchnorm that does not follow a conv).
/// On error G is left partly rewritten and should be discarded.
llvm::Error canonicalize(Graph &G, const CanonOptions &Opts = {});

/// Orders the output channels of each conv read only through slices so that
/// its output groups of \p Group channels (the machine's vMACs x lanes) cut
/// its slices where that costs least: sliceCutCost's bursts, \p Burst
/// channels each (a DRAM burst), where that is less than the order as is.
/// The conv's weight and bias rows move and each slice's SliceBegin, so
/// every value is the one computed before, in another place of an output
/// that only the slices read (AlignSlices.cpp). Returns how many convs it
/// reordered. (snowc, before planning.)
unsigned alignSlices(Graph &G, unsigned Group, unsigned Burst);
/// What the output groups of \p Group channels that store each slice of a
/// conv read only through slices cost beyond the slices' bytes, in DRAM
/// bursts of \p Burst channels a pixel, summed over such convs: a slice
/// that one group stores moves as one stream; one that groups cut moves as
/// a DMA row a pixel of each piece.
double sliceCutCost(const Graph &G, unsigned Group, unsigned Burst);

/// Undoes canonicalize()'s merge of sibling convs for one member: the slice
/// named \p Member of a merged conv becomes a conv of its own (the merged
/// conv's window, post-processing and formats, its rows of the weights),
/// and the merged conv loses those channels (its name is the rest's, or the
/// one member's left). Every value computed is the one the merged conv
/// computes, quantized or not, so snowref, which always merges, agrees bit
/// for bit. An error where \p Member is no member of a merged conv (a conv
/// kept apart before is none). (snowc --layer-off LAYER=apart, --tune.)
llvm::Error keepApart(Graph &G, const std::string &Member);
/// The index of the merged conv that layer \p Member is a member of (a
/// slice of), which keepApart can undo; -1 where it is none.
int mergedConvOf(const Graph &G, const std::string &Member);

/// Per-layer table (name, type, output shape, MACs, params) and totals, for
/// snowc --summary. Works on the graph as written or canonical.
std::string summary(const Graph &G);

/// Whether quantize() keeps the float Weights / Bias it quantized. A compiler
/// needs only the integers, and releasing each layer's floats as soon as it
/// is quantized keeps a large model's floats and integers from being held
/// at once (VGG-16: 552 MB of floats); a tool that still runs the float
/// model afterwards (snowref) keeps them.
enum class FloatWeights { Keep, Release };

/// Chooses fixed-point formats and fills QWeights / QBias (docs/fixed-point.md)
/// with one activation format, ActFrac, for every tensor: the hardware's
/// (HwConfig::ActFracBits). Per-layer formats chosen by calibration go through
/// the overload in Calibrate.h instead. A dense conv with deferred weights
/// keeps them deferred: its QWeights stay empty (quantizedWeights draws them).
void quantize(Graph &G, int ActFrac, FloatWeights Floats = FloatWeights::Keep);

/// The deterministic input used when none is given (snow::defaultInputValues).
std::vector<float> defaultInput(const Graph &G);

/// float -> int16 in Q(15-Frac).Frac: round half away from zero, saturate.
int16_t toFixed(float X, int Frac);
/// toFixed of N values, vectorized where the CPU allows (the same bits).
void toFixedInto(const float *X, int16_t *Q, size_t N, int Frac);
/// L's integer weights: QWeights, or, for a dense conv whose weights are
/// deferred (quantize() then leaves QWeights empty and the weight image is
/// drawn block by block), the deferred values in WFrac.
std::vector<int16_t> quantizedWeights(const Layer &L);
float fromFixed(int16_t X, int Frac);

// Building blocks of loadModel and quantize, for tests and for tools that
// build graphs in code.

/// One spatial output size by PyTorch's rule (docs/fixed-point.md), with the
/// ceil_mode rule that drops a last window starting in the end padding.
/// Returns 0 when the kernel is larger than the padded input.
unsigned windowOutSize(unsigned In, unsigned K, unsigned S, unsigned PadBegin, unsigned PadEnd,
                       bool CeilMode);

/// The quantizer's format search: the largest f in 0..24 with
/// round(MaxAbs * 2^f) <= 32767, or 0 when none fits (values then saturate).
int largestFrac(double MaxAbs);

/// For a function that is flat below -R and y = x above R (SiLU, GELU,
/// HardSwish), R as a power of two, past which the difference is far under
/// an output step; 0 for the others.
double lutLinearBeyond(Act A);

/// How a table covers its input (docs/fixed-point.md, "Activation tables"):
/// with the identity tail, input and output share a format and the table
/// spans [-R, R) of lutLinearBeyond, zoomed in by Zoom; otherwise it spans
/// the whole int16 range of PreFrac (Zoom 0, tail off).
struct LutCover {
  unsigned Zoom = 0;
  bool IdentityTail = false;
  /// rsqrt: the normalised mode (isa/Lut.h), over every x > 0.
  bool Normalised = false;
};
/// The cover of a table from PreFrac to OutFrac: the identity tail exactly
/// when the function has one, PreFrac == OutFrac and that format reaches R.
LutCover lutCover(Act A, int PreFrac, int OutFrac);

/// The activation table of a layer with an Activation, from its PreFrac to
/// its OutFrac (docs/fixed-point.md, "Activation tables"): entry e < LutEnds
/// holds the function at the start of segment e, x = (e * 2^LutSegmentBits -
/// 32768) / 2^(PreFrac + Zoom), rounded half away from zero to OutFrac and
/// saturated; entry LutEnds, lutCover's control.
std::vector<int16_t> buildLut(const Layer &L);

/// The largest |lut(x) - f(x)| of L's table over every int16 input x, in
/// units of the output's last place: f exact, lut as the hardware
/// interpolates (isa::lutLookup), before the output's saturation (inputs
/// whose exact value the output format cannot hold are skipped).
double lutErrorLsb(const Layer &L);

/// Average pooling over K window positions (docs/fixed-point.md): Shift =
/// 15 + ceil(log2 K), Mult = round(2^Shift / K). quantize() fills AvgMult /
/// AvgShift with these, the shift lowered by OutFrac - InFrac (the pooling
/// rescales to its own output format).
void avgPoolFactors(uint64_t K, unsigned &Mult, unsigned &Shift);
/// avgPoolFactors' Shift for a window of K positions.
int avgPoolShift(uint64_t K);
/// The largest average-pooling window (KH * KW) the rule above supports.
constexpr uint64_t MaxAvgWindow = 65536;

/// Seeded initialization (docs/model-format.md): fills L.Weights (OIHW, from
/// L.In.C, L.Out.C, KH, KW) and L.Bias (zeros when HasBias is false).
/// Grouped convs draw (Out.C, In.C / Groups, KH, KW), fcs (Out.C, In.elems()).
void seedWeights(Layer &L, uint64_t Seed, bool HasBias);
/// The same values, deferred: sets L.Seeded (and its channel maxima, one
/// pass over the draws) and draws only L.Bias.
void deferSeededWeights(Layer &L, uint64_t Seed, bool HasBias);

/// Seeded batchnorm statistics (docs/model-format.md): Gamma, Beta, Mean and
/// Var, In.C entries each, drawn in that order from one generator.
void seedBatchNorm(Layer &L, uint64_t Seed);

/// Reads a float32 .npy whose shape must equal Shape exactly; errors name the
/// file and give the expected and actual shapes.
llvm::Error readTensorNpy(const std::string &Path, const std::vector<uint64_t> &Shape,
                          std::vector<float> &Out);

} // namespace snow::ir

#endif
