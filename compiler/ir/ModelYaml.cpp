//===- ModelYaml.cpp - The model YAML front end ---------------------------===//
//
// Turns a model file (docs/model-format.md) into a Graph: checks every key
// against the layer type, resolves layer inputs, infers shapes by PyTorch's
// rules and attaches weights. It is strict because a misspelled key that is
// silently ignored ("strides: 2") produces a model that compiles, runs and is
// wrong; every error instead names the file:line, the layer and the offending
// key or value in quotes.
//
// This file holds the value readers and the structure common to every layer
// (names, input / inputs); ModelLayers.cpp the rules of each layer type.
//
//===----------------------------------------------------------------------===//

#include "ModelParser.h"
#include "snow/support/FileIO.h"
#include "snow/support/Limits.h"
#include "snow/support/Text.h"
#include "snow/support/Yaml.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <cassert>
#include <cmath>
#include <fmt/format.h>

using namespace snow::ir;
using namespace snow::ir::detail;

namespace {

const char *const TopKeys[] = {"name", "input", "weights", "layers"};
const char *const InputKeys[] = {"name", "shape"};
const char *const WeightsKeys[] = {"seed"};

} // namespace

std::string snow::ir::detail::describe(const YAML::Node &N) {
  // Scalars are quoted, escaped and shortened: the message is printed.
  if (N.IsScalar())
    return "'" + snow::escapeUntrusted(N.Scalar(), 200) + "'";
  if (N.IsSequence())
    return N.size() ? fmt::format("a list of {}", N.size()) : "an empty list";
  if (N.IsMap())
    return N.size() ? fmt::format("a mapping of {} keys", N.size()) : "an empty mapping";
  return "nothing";
}

std::string snow::ir::detail::shapeStr(const Shape &S) {
  return fmt::format("{}x{}x{}", S.C, S.H, S.W);
}

ModelParser::ModelParser(const std::string &File, SeededValues Seeding)
    : File(File), Dir(llvm::sys::path::parent_path(File).str()), Seeding(Seeding) {}

void ModelParser::error(const YAML::Node &At, const std::string &Msg) const {
  throw ModelError{fmt::format("{}:{}: {}{}", File, line(At), Ctx, Msg)};
}

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

double ModelParser::finiteNumber(const YAML::Node &N, const char *Key) {
  double V;
  if (!N.IsScalar() || N.Tag() == "!" || llvm::StringRef(N.Scalar()).getAsDouble(V) ||
      !std::isfinite(V))
    error(N, fmt::format("'{}' must be a finite number, got {}", Key, describe(N)));
  return V;
}

double ModelParser::positiveNumber(const YAML::Node &N, const char *Key) {
  double V;
  if (!N.IsScalar() || N.Tag() == "!" || llvm::StringRef(N.Scalar()).getAsDouble(V) ||
      !std::isfinite(V) || V <= 0)
    error(N, fmt::format("'{}' must be a positive number, got {}", Key, describe(N)));
  return V;
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

/// The message for a tensor over maxActivationValues(); What names it.
static std::string tooManyValues(const char *What, const Shape &S) {
  return fmt::format("{} {} has {} values, more than the {} a tensor may have (the environment "
                     "variable SNOW_MAX_TENSOR_MVALUES raises the limit, in millions)",
                     What, shapeStr(S), S.elems(), snow::maxActivationValues());
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
  if (G.Input.elems() > snow::maxActivationValues())
    error(S, tooManyValues("the input", G.Input));
  TotalValues = G.Input.elems();
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

int ModelParser::resolveInput(const YAML::Node &Ref, const Layer &L, const Graph &G) {
  std::string Src = scalar(Ref, "input");
  if (Src == G.InputName)
    return -1;
  if (auto It = Defined.find(Src); It != Defined.end())
    return int(It->second);
  // Layers may only read layers above them, which keeps the list in
  // topological order; anything else would be a cycle or need reordering.
  if (Src == L.Name)
    error(Ref, "input '" + Src +
                   "' is the layer itself (a cycle or forward reference); inputs must be "
                   "defined earlier in the file");
  if (AllNames.count(Src))
    error(Ref, "input '" + Src +
                   "' names a later layer (a cycle or forward reference); inputs must be "
                   "defined earlier in the file");
  error(Ref, "input '" + Src + "' is not defined");
}

void ModelParser::parseInputs(const YAML::Node &N, Layer &L, const Graph &G) {
  const TypeInfo *T = findType(L.TypeName);
  if (!T->MultiInput) {
    // Default: the previous layer (or the graph input for the first layer).
    L.Inputs = {int(G.Layers.size()) - 1};
    if (YAML::Node In = N["input"])
      L.Inputs = {resolveInput(In, L, G)};
  } else {
    YAML::Node List = required(N, N, "inputs");
    if (!List.IsSequence() || List.size() < 2)
      error(List, fmt::format("'inputs' must be a list of at least 2 layer names, got {}",
                              List.IsSequence() ? fmt::format("a list of {}", List.size())
                                                : describe(List)));
    if ((L.Kind == LayerKind::Add || L.Kind == LayerKind::Mul || L.TypeName == "scale") &&
        List.size() != 2)
      error(List, fmt::format("'inputs' of {} {} must name exactly 2 layers, got {}",
                              L.TypeName == "add" ? "an" : "a", L.TypeName, List.size()));
    L.Inputs.clear();
    for (size_t I = 0; I < List.size(); ++I)
      L.Inputs.push_back(resolveInput(List[I], L, G));
  }
  L.In = L.input() < 0 ? G.Input : G.Layers[L.input()].Out;
}

void ModelParser::parseLayer(const YAML::Node &N, size_t Index, size_t Count, Graph &G) {
  Ctx = fmt::format("layer #{}: ", Index + 1);
  if (!N.IsMap())
    error(N, "expected a mapping {name: ..., type: ...}, got " + describe(N));
  Layer L;
  L.Loc = {File, line(N)};
  YAML::Node NameNode = required(N, N, "name");
  L.Name = scalar(NameNode, "name");
  Ctx = "layer '" + L.Name + "': ";

  YAML::Node TypeNode = required(N, N, "type");
  L.TypeName = scalar(TypeNode, "type");
  const TypeInfo *T = findType(L.TypeName);
  if (!T)
    error(TypeNode,
          fmt::format("unsupported layer type '{}' (supported: {})", L.TypeName, supportedTypes()));
  L.Kind = T->Kind;
  // The two input keys get their own messages: the generic unknown-key one
  // would not tell the user which of the two the type wants.
  if (YAML::Node In = N["input"]; In && T->MultiInput)
    error(In, fmt::format("'input' is not allowed for type '{}': give its inputs as a list, "
                          "'inputs: [a, b]'",
                          L.TypeName));
  if (YAML::Node In = N["inputs"]; In && !T->MultiInput)
    error(In, fmt::format("'inputs' is only for concat and add; type '{}' reads one layer, "
                          "named by 'input'",
                          L.TypeName));
  std::vector<const char *> Known = {"name", "type", T->MultiInput ? "inputs" : "input"};
  Known.insert(Known.end(), T->Keys.begin(), T->Keys.end());
  checkKeys(N, Known, " for type '" + L.TypeName + "'");

  if (L.Name == G.InputName)
    error(NameNode, "the name is already used by the graph input");
  if (auto It = Defined.find(L.Name); It != Defined.end())
    error(NameNode,
          "duplicate layer name (first defined at " + G.Layers[It->second].Loc.str() + ")");
  if (L.Kind == LayerKind::Softmax && Index + 1 != Count)
    error(TypeNode, "a softmax must be the last layer (it runs on the host, after the "
                    "accelerator)");

  parseInputs(N, L, G);
  switch (L.Kind) {
  case LayerKind::Conv:
    if (L.TypeName == "scale")
      parseScale(N, L, G);
    else if (L.TypeName == "shuffle" || L.TypeName == "slice")
      parseSelection(N, L);
    else
      parseConv(N, L);
    break;
  case LayerKind::MaxPool:
  case LayerKind::AvgPool:
    parseWindow(N, L);
    break;
  case LayerKind::GlobalAvgPool:
    if (uint64_t(L.In.H) * L.In.W > MaxAvgWindow)
      error(N, fmt::format("an average over {}x{} positions is more than the supported {}", L.In.H,
                           L.In.W, MaxAvgWindow));
    L.Out = {L.In.C, 1, 1};
    break;
  case LayerKind::Fc:
    parseFc(N, L);
    break;
  case LayerKind::Concat:
  case LayerKind::Add:
  case LayerKind::Mul:
    parseJoin(N, L, G);
    break;
  case LayerKind::Relu:
    L.Out = L.In;
    break;
  case LayerKind::Activation:
    parseActivation(N, L);
    break;
  case LayerKind::Slice: // Made by canonicalize() only; no model type names it.
    assert(false && "no layer type parses as a slice");
    break;
  case LayerKind::Softmax:
    // The host normalizes the whole output vector; over a CxHxW map PyTorch
    // would normalize each position separately, so such a model is refused
    // rather than run with a silently different meaning.
    if (L.In.H != 1 || L.In.W != 1)
      error(N, fmt::format("a softmax needs a vector of scores (Cx1x1), got {}; put a flatten "
                           "or global_avgpool before it",
                           shapeStr(L.In)));
    L.Out = L.In;
    break;
  case LayerKind::BatchNorm:
  case LayerKind::LayerNorm: // Gamma, beta and eps as a batchnorm's; no statistics.
    parseBatchNorm(N, L);
    break;
  case LayerKind::Flatten:
    L.Out = {uint32_t(L.In.elems()), 1, 1};
    break;
  }

  // Checked before any tensor is allocated (the float run, the default
  // input): one error instead of "out of memory" for a 65536-wide pad.
  if (L.Out.elems() > snow::maxActivationValues())
    error(N, tooManyValues("the output", L.Out));
  TotalValues += L.Out.elems();
  if (TotalValues > snow::maxModelActivationValues())
    error(N,
          fmt::format("the outputs of the layers up to this one hold {} values, more than the {} "
                      "a model may have (the environment variable SNOW_MAX_TENSOR_MVALUES "
                      "raises the limit: twice its value)",
                      TotalValues, snow::maxModelActivationValues()));
  TotalMacs += L.macs();
  if (TotalMacs > snow::maxModelMacs())
    error(N, fmt::format("the layers up to this one take {} multiply-accumulates per frame, more "
                         "than the {} a model may (the environment variable SNOW_MAX_GMACS raises "
                         "the limit, in billions)",
                         TotalMacs, snow::maxModelMacs()));
  Defined[L.Name] = G.Layers.size();
  G.Layers.push_back(std::move(L));
}

Graph ModelParser::parse(const std::string &Text) {
  // Const throughout: yaml-cpp's non-const operator[] inserts missing keys.
  YAML::Node Loaded;
  try {
    // A second document would be ignored by YAML::Load: refused instead
    // (a concatenation of two models is a mistake, not a model).
    snow::YamlDocument D = snow::loadOneDocument(Text);
    if (std::string Err = snow::extraDocumentError(D, File); !Err.empty())
      throw ModelError{Err};
    Loaded = D.Root;
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
  if (YAML::Node W = Root["weights"])
    Seed = parseSeed(W);

  const YAML::Node Layers = required(Root, Root, "layers");
  if (!Layers.IsSequence() || Layers.size() == 0)
    error(Layers, "'layers' must be a non-empty list, got " + describe(Layers));
  for (size_t I = 0; I < Layers.size(); ++I)
    if (Layers[I].IsMap() && Layers[I]["name"] && Layers[I]["name"].IsScalar())
      AllNames.emplace(Layers[I]["name"].Scalar(), I);
  for (size_t I = 0; I < Layers.size(); ++I)
    parseLayer(Layers[I], I, Layers.size(), G);
  return G;
}

llvm::Expected<Graph> snow::ir::parseModel(const std::string &Text, const std::string &File,
                                           SeededValues Values) {
  try {
    return ModelParser(File, Values).parse(Text);
  } catch (const ModelError &E) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), E.Msg);
  } catch (const YAML::Exception &E) {
    // Any yaml-cpp surprise still gets a location rather than escaping.
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s:%d: %s", File.c_str(),
                                   E.mark.line + 1, E.msg.c_str());
  }
}

llvm::Expected<Graph> snow::ir::loadModel(const std::string &Path, SeededValues Values) {
  auto BufOrErr = snow::readInputFile(Path, /*IsText=*/true);
  if (!BufOrErr)
    return llvm::createStringError(BufOrErr.getError(), "%s: cannot read model: %s", Path.c_str(),
                                   BufOrErr.getError().message().c_str());
  return parseModel((*BufOrErr)->getBuffer().str(), Path, Values);
}
