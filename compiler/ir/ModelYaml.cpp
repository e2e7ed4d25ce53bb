//===- ModelYaml.cpp - The model YAML front end ---------------------------===//
//
// Turns a model file (docs/model-format.md) into a Graph: checks every key
// against the layer type, resolves layer inputs, infers shapes by PyTorch's
// rules and attaches weights. It is strict because a misspelled key that is
// silently ignored ("strides: 2") produces a model that compiles, runs and is
// wrong; every error instead names the file:line, the layer and the offending
// key or value in quotes.
//
// Inside the parser an error is a thrown ModelError, converted to llvm::Error
// at the API boundary: validation is a long chain of checks, and threading an
// Expected through each one would bury the rules in plumbing.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Graph.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <fmt/format.h>
#include <map>
#include <yaml-cpp/yaml.h>

using namespace snow::ir;

namespace {

struct ModelError {
  std::string Msg;
};

/// Sizes beyond this are certainly typos, and rejecting them keeps every
/// product of sizes far from overflow and every allocation sane.
constexpr int64_t MaxDim = 65536;
constexpr uint64_t MaxWeights = uint64_t(1) << 28;

const char *const TopKeys[] = {"name", "input", "weights", "layers"};
const char *const InputKeys[] = {"name", "shape"};
const char *const WeightsKeys[] = {"seed"};
const char *const ConvKeys[] = {"name", "type", "input", "out_channels", "kernel",   "stride",
                                "pad",  "relu", "bias",  "weights_file", "bias_file"};
const char *const PoolKeys[] = {"name", "type", "input", "kernel", "stride", "pad", "ceil_mode"};

struct HW {
  unsigned H, W;
};
struct Pads {
  unsigned T, B, L, R;
};

/// How a value looks in a message: scalars quoted, containers by kind.
std::string describe(const YAML::Node &N) {
  if (N.IsScalar())
    return "'" + N.Scalar() + "'";
  if (N.IsSequence())
    return "a list";
  if (N.IsMap())
    return "a mapping";
  return "nothing";
}

class ModelParser {
public:
  explicit ModelParser(const std::string &File)
      : File(File), Dir(llvm::sys::path::parent_path(File).str()) {}

  Graph parse(const std::string &Text);

private:
  std::string File, Dir;
  /// Prefix naming what is being parsed ("layer 'c2': "), for messages.
  std::string Ctx;
  /// Every layer name in the file with its index, so that an input naming a
  /// later layer is reported as a forward reference, not as undefined.
  std::map<std::string, size_t> AllNames;
  /// Layers defined so far, by name.
  std::map<std::string, size_t> Defined;

  static unsigned line(const YAML::Node &N) {
    int L = N.Mark().line;
    return L < 0 ? 0 : unsigned(L) + 1;
  }
  [[noreturn]] void error(const YAML::Node &At, const std::string &Msg) const {
    throw ModelError{fmt::format("{}:{}: {}{}", File, line(At), Ctx, Msg)};
  }

  void checkKeys(const YAML::Node &Map, llvm::ArrayRef<const char *> Known,
                 const std::string &Suffix);
  YAML::Node required(const YAML::Node &Map, const YAML::Node &Owner, const char *Key);
  std::string scalar(const YAML::Node &N, const char *Key);
  int64_t integer(const YAML::Node &N, const char *Key, int64_t Min, const char *Expect);
  bool boolean(const YAML::Node &N, const char *Key);
  HW hw(const YAML::Node &N, const char *Key);
  Pads pads(const YAML::Node &N);

  void parseInput(const YAML::Node &N, Graph &G);
  uint64_t parseSeed(const YAML::Node &N);
  void parseLayer(const YAML::Node &N, size_t Index, uint64_t Seed, Graph &G);
  void attachWeights(const YAML::Node &N, Layer &L, uint64_t Seed);
};

void ModelParser::checkKeys(const YAML::Node &Map, llvm::ArrayRef<const char *> Known,
                            const std::string &Suffix) {
  std::map<std::string, bool> Seen;
  for (auto It = Map.begin(); It != Map.end(); ++It) {
    const YAML::Node Key = It->first; // a copy: operator-> returns a temporary proxy
    if (!Key.IsScalar())
      error(Key, "keys must be plain names, got " + describe(Key));
    const std::string &K = Key.Scalar();
    if (llvm::find_if(Known, [&](const char *C) { return K == C; }) == Known.end())
      error(Key,
            fmt::format("unknown key '{}'{} (known keys: {})", K, Suffix, fmt::join(Known, ", ")));
    // yaml-cpp keeps both copies of a repeated key and we would read the
    // first; the user almost certainly meant the second.
    if (Seen[K])
      error(Key, "key '" + K + "' is given twice");
    Seen[K] = true;
  }
}

YAML::Node ModelParser::required(const YAML::Node &Map, const YAML::Node &Owner, const char *Key) {
  YAML::Node V = Map[Key];
  if (!V)
    error(Owner, fmt::format("missing required key '{}'", Key));
  return V;
}

std::string ModelParser::scalar(const YAML::Node &N, const char *Key) {
  if (!N.IsScalar() || N.Scalar().empty())
    error(N, fmt::format("'{}' must be a name, got {}", Key, describe(N)));
  return N.Scalar();
}

int64_t ModelParser::integer(const YAML::Node &N, const char *Key, int64_t Min,
                             const char *Expect) {
  int64_t V;
  // A quoted scalar ("3") is a string in YAML, so it is not accepted as a number.
  if (!N.IsScalar() || N.Tag() == "!" || llvm::StringRef(N.Scalar()).getAsInteger(10, V))
    error(N, fmt::format("'{}' must be {}, got {}", Key, Expect, describe(N)));
  if (V < Min)
    error(N,
          fmt::format("'{}' must be {}, got '{}'", Key, Min > 0 ? "positive" : "non-negative", V));
  if (V > MaxDim)
    error(N, fmt::format("'{}' is too large: '{}' (at most {})", Key, V, MaxDim));
  return V;
}

bool ModelParser::boolean(const YAML::Node &N, const char *Key) {
  bool B;
  if (!N.IsScalar() || N.Tag() == "!" || !YAML::convert<bool>::decode(N, B))
    error(N, fmt::format("'{}' must be true or false, got {}", Key, describe(N)));
  return B;
}

HW ModelParser::hw(const YAML::Node &N, const char *Key) {
  const char *Expect = "a positive integer or [h, w]";
  if (N.IsSequence()) {
    if (N.size() != 2)
      error(N, fmt::format("'{}' must be {}, got a list of {}", Key, Expect, N.size()));
    return {unsigned(integer(N[0], Key, 1, Expect)), unsigned(integer(N[1], Key, 1, Expect))};
  }
  unsigned V = unsigned(integer(N, Key, 1, Expect));
  return {V, V};
}

Pads ModelParser::pads(const YAML::Node &N) {
  const char *Expect = "a non-negative integer, [h, w] or [top, bottom, left, right]";
  auto Get = [&](const YAML::Node &E) { return unsigned(integer(E, "pad", 0, Expect)); };
  if (!N.IsSequence()) {
    unsigned P = Get(N);
    return {P, P, P, P};
  }
  if (N.size() == 2) {
    unsigned H = Get(N[0]), W = Get(N[1]);
    return {H, H, W, W};
  }
  if (N.size() == 4)
    return {Get(N[0]), Get(N[1]), Get(N[2]), Get(N[3])};
  error(N, fmt::format("'pad' must be {}, got a list of {}", Expect, N.size()));
}

void ModelParser::parseInput(const YAML::Node &N, Graph &G) {
  Ctx = "input: ";
  if (!N.IsMap())
    error(N, "expected a mapping {name: ..., shape: [C, H, W]}, got " + describe(N));
  checkKeys(N, InputKeys, "");
  if (YAML::Node Name = N["name"])
    G.InputName = scalar(Name, "name");
  YAML::Node S = required(N, N, "shape");
  const char *Expect = "[channels, height, width] of positive integers";
  if (!S.IsSequence() || S.size() != 3)
    error(S, fmt::format("'shape' must be {}, got {}", Expect, describe(S)));
  G.Input = {uint32_t(integer(S[0], "shape", 1, Expect)),
             uint32_t(integer(S[1], "shape", 1, Expect)),
             uint32_t(integer(S[2], "shape", 1, Expect))};
  Ctx.clear();
}

uint64_t ModelParser::parseSeed(const YAML::Node &N) {
  Ctx = "weights: ";
  if (!N.IsMap())
    error(N, "expected a mapping {seed: N}, got " + describe(N));
  checkKeys(N, WeightsKeys, "");
  uint64_t Seed = 0;
  if (YAML::Node S = N["seed"]) {
    // Seeds use the full 64 bits, so they skip integer()'s size limit.
    if (!S.IsScalar() || S.Tag() == "!" || llvm::StringRef(S.Scalar()).getAsInteger(10, Seed))
      error(S, "'seed' must be a non-negative 64-bit integer, got " + describe(S));
  }
  Ctx.clear();
  return Seed;
}

void ModelParser::attachWeights(const YAML::Node &N, Layer &L, uint64_t Seed) {
  bool HasBias = true;
  if (YAML::Node B = N["bias"])
    HasBias = boolean(B, "bias");
  YAML::Node WFile = N["weights_file"], BFile = N["bias_file"];
  if (BFile && !HasBias)
    error(BFile, "'bias_file' is given but 'bias' is false");
  // Seeded values first; files then replace what they provide. The bias
  // draws follow the weight draws, so a seeded bias does not depend on
  // whether the weights came from a file.
  seedWeights(L, Seed, HasBias);
  auto Load = [&](const YAML::Node &F, const char *Key, std::vector<uint64_t> Shape,
                  std::vector<float> &Out) {
    std::string Rel = scalar(F, Key);
    std::string Path = Rel;
    if (!llvm::sys::path::is_absolute(Rel) && !Dir.empty())
      Path = (llvm::Twine(Dir) + llvm::sys::path::get_separator() + Rel).str();
    if (llvm::Error E = readTensorNpy(Path, Shape, Out))
      error(F, fmt::format("'{}' '{}': {}", Key, Rel, llvm::toString(std::move(E))));
  };
  if (WFile)
    Load(WFile, "weights_file", {L.Out.C, L.In.C, L.KH, L.KW}, L.Weights);
  if (BFile)
    Load(BFile, "bias_file", {L.Out.C}, L.Bias);
}

void ModelParser::parseLayer(const YAML::Node &N, size_t Index, uint64_t Seed, Graph &G) {
  Ctx = fmt::format("layer #{}: ", Index + 1);
  if (!N.IsMap())
    error(N, "expected a mapping {name: ..., type: ...}, got " + describe(N));
  Layer L;
  L.Loc = {File, line(N)};
  YAML::Node NameNode = required(N, N, "name");
  L.Name = scalar(NameNode, "name");
  Ctx = "layer '" + L.Name + "': ";

  YAML::Node TypeNode = required(N, N, "type");
  std::string Type = scalar(TypeNode, "type");
  if (Type == "conv")
    L.Kind = LayerKind::Conv;
  else if (Type == "maxpool")
    L.Kind = LayerKind::MaxPool;
  else
    error(TypeNode, "unknown type '" + Type + "' (supported types: conv, maxpool)");
  bool IsConv = L.Kind == LayerKind::Conv;
  checkKeys(N, IsConv ? llvm::ArrayRef<const char *>(ConvKeys) : PoolKeys,
            " for type '" + Type + "'");

  if (L.Name == G.InputName)
    error(NameNode, "the name is already used by the graph input");
  if (auto It = Defined.find(L.Name); It != Defined.end())
    error(NameNode,
          "duplicate layer name (first defined at " + G.Layers[It->second].Loc.str() + ")");

  // Resolve the input: default is the previous layer (or the graph input).
  L.Input = int(G.Layers.size()) - 1;
  if (YAML::Node In = N["input"]) {
    std::string Src = scalar(In, "input");
    if (Src == G.InputName) {
      L.Input = -1;
    } else if (auto It = Defined.find(Src); It != Defined.end()) {
      L.Input = int(It->second);
    } else if (Src == L.Name) {
      error(In, "input '" + Src + "' is the layer itself (a cycle)");
    } else if (AllNames.count(Src)) {
      error(In, "input '" + Src +
                    "' names a later layer (a forward reference or cycle); inputs must be "
                    "defined earlier in the file");
    } else {
      error(In, "input '" + Src + "' is not defined");
    }
  }
  L.In = L.Input < 0 ? G.Input : G.Layers[L.Input].Out;

  // Window geometry.
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
  if (YAML::Node CN = N["ceil_mode"])
    L.CeilMode = boolean(CN, "ceil_mode");
  if (YAML::Node RN = N["relu"])
    L.Relu = boolean(RN, "relu");

  // Output shape.
  uint64_t PH = uint64_t(L.In.H) + L.PadT + L.PadB, PW = uint64_t(L.In.W) + L.PadL + L.PadR;
  if (L.KH > PH || L.KW > PW)
    error(N, fmt::format("kernel {}x{} is larger than its padded input {}x{}", L.KH, L.KW, PH, PW));
  L.Out.C = IsConv ? uint32_t(integer(required(N, N, "out_channels"), "out_channels", 1,
                                      "a positive integer"))
                   : L.In.C;
  L.Out.H = windowOutSize(L.In.H, L.KH, L.SH, L.PadT, L.PadB, L.CeilMode);
  L.Out.W = windowOutSize(L.In.W, L.KW, L.SW, L.PadL, L.PadR, L.CeilMode);
  // Unreachable after the kernel check with PyTorch's rule, but the shape
  // must never reach the compiler with a zero in it.
  if (L.Out.H < 1 || L.Out.W < 1)
    error(N, fmt::format("output size {}x{} is less than 1", L.Out.H, L.Out.W));

  if (IsConv) {
    uint64_t Count = uint64_t(L.Out.C) * L.In.C * L.KH * L.KW;
    if (Count > MaxWeights)
      error(N, fmt::format("{} weights are more than the supported {}", Count, MaxWeights));
    attachWeights(N, L, Seed);
  }

  Defined[L.Name] = G.Layers.size();
  G.Layers.push_back(std::move(L));
}

Graph ModelParser::parse(const std::string &Text) {
  // Const throughout: yaml-cpp's non-const operator[] inserts missing keys.
  YAML::Node Loaded;
  try {
    Loaded = YAML::Load(Text);
  } catch (const YAML::ParserException &E) {
    throw ModelError{fmt::format("{}:{}: YAML syntax error: {}", File, E.mark.line + 1, E.msg)};
  }
  const YAML::Node &Root = Loaded;
  if (!Root.IsMap())
    throw ModelError{fmt::format("{}:{}: expected a mapping with keys name, input, layers, got {}",
                                 File, std::max(line(Root), 1u), describe(Root))};
  checkKeys(Root, TopKeys, " at top level");

  Graph G;
  G.Loc = {File, line(Root)};
  G.Name = scalar(required(Root, Root, "name"), "name");
  parseInput(required(Root, Root, "input"), G);
  uint64_t Seed = 0;
  if (YAML::Node W = Root["weights"])
    Seed = parseSeed(W);

  const YAML::Node Layers = required(Root, Root, "layers");
  if (!Layers.IsSequence() || Layers.size() == 0)
    error(Layers, "'layers' must be a non-empty list, got " + describe(Layers));
  for (size_t I = 0; I < Layers.size(); ++I)
    if (Layers[I].IsMap() && Layers[I]["name"] && Layers[I]["name"].IsScalar())
      AllNames.emplace(Layers[I]["name"].Scalar(), I);
  for (size_t I = 0; I < Layers.size(); ++I)
    parseLayer(Layers[I], I, Seed, G);
  return G;
}

} // namespace

llvm::Expected<Graph> snow::ir::parseModel(const std::string &Text, const std::string &File) {
  try {
    return ModelParser(File).parse(Text);
  } catch (const ModelError &E) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), E.Msg);
  } catch (const YAML::Exception &E) {
    // Any yaml-cpp surprise still gets a location rather than escaping.
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s:%d: %s", File.c_str(),
                                   E.mark.line + 1, E.msg.c_str());
  }
}

llvm::Expected<Graph> snow::ir::loadModel(const std::string &Path) {
  auto BufOrErr = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!BufOrErr)
    return llvm::createStringError(BufOrErr.getError(), "%s: cannot read model: %s", Path.c_str(),
                                   BufOrErr.getError().message().c_str());
  return parseModel((*BufOrErr)->getBuffer().str(), Path);
}
