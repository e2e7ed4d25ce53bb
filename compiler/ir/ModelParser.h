//===- ModelParser.h - The model YAML parser, shared by its two files -*- C++ -*-===//
//
// Private to compiler/ir. The parser is split in two files so that each stays
// small: ModelYaml.cpp holds the value readers, the file and input/inputs
// structure, and the API entry points; ModelLayers.cpp holds one function per
// layer type with its keys, shape rule and parameters.
//
// Inside the parser an error is a thrown ModelError, converted to llvm::Error
// at the API boundary: validation is a long chain of checks, and threading an
// Expected through each one would bury the rules in plumbing.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_IR_MODELPARSER_H
#define SNOW_IR_MODELPARSER_H

#include "snow/ir/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include <map>
#include <string>
#include <yaml-cpp/yaml.h>

namespace snow::ir::detail {

struct ModelError {
  std::string Msg;
};

/// Sizes beyond this are certainly typos, and rejecting them keeps every
/// product of sizes far from overflow and every allocation sane.
constexpr int64_t MaxDim = 65536;
constexpr uint64_t MaxWeights = uint64_t(1) << 28;

struct HW {
  unsigned H, W;
};
struct Pads {
  unsigned T, B, L, R;
};

/// How a value looks in a message: scalars quoted, containers by kind.
std::string describe(const YAML::Node &N);
/// "CxHxW", the form shapes take in messages and in summary().
std::string shapeStr(const Shape &S);

/// A layer type as written: its kind and its own keys (name, type and
/// input / inputs are common to all and not listed).
struct TypeInfo {
  const char *Name;
  LayerKind Kind;
  llvm::ArrayRef<const char *> Keys;
  /// Concat and add read a list `inputs`; every other type one `input`.
  bool MultiInput;
};
/// The type called Name, or null (ModelLayers.cpp).
const TypeInfo *findType(const std::string &Name);
/// "conv, maxpool, ...", for the unsupported-type message.
std::string supportedTypes();

class ModelParser {
public:
  ModelParser(const std::string &File, SeededValues Values);

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
  uint64_t Seed = 0;
  /// Whether seeded weights are drawn now or deferred (SeededValues).
  SeededValues Seeding;
  /// Running totals over the layers so far, checked against the model caps
  /// (snow/support/Limits.h) before anything more is allocated.
  uint64_t TotalValues = 0, TotalWeights = 0, TotalMacs = 0;

  static unsigned line(const YAML::Node &N) {
    int L = N.Mark().line;
    return L < 0 ? 0 : unsigned(L) + 1;
  }
  [[noreturn]] void error(const YAML::Node &At, const std::string &Msg) const;

  // Value readers (ModelYaml.cpp).
  void checkKeys(const YAML::Node &Map, llvm::ArrayRef<const char *> Known,
                 const std::string &Suffix);
  YAML::Node required(const YAML::Node &Map, const YAML::Node &Owner, const char *Key);
  std::string scalar(const YAML::Node &N, const char *Key);
  int64_t integer(const YAML::Node &N, const char *Key, int64_t Min, const char *Expect);
  bool boolean(const YAML::Node &N, const char *Key);
  double positiveNumber(const YAML::Node &N, const char *Key);
  double finiteNumber(const YAML::Node &N, const char *Key);
  HW hw(const YAML::Node &N, const char *Key);
  Pads pads(const YAML::Node &N);

  // File structure (ModelYaml.cpp).
  void parseInput(const YAML::Node &N, Graph &G);
  uint64_t parseSeed(const YAML::Node &N);
  void parseLayer(const YAML::Node &N, size_t Index, size_t Count, Graph &G);
  int resolveInput(const YAML::Node &Ref, const Layer &L, const Graph &G);
  void parseInputs(const YAML::Node &N, Layer &L, const Graph &G);

  // One function per layer type (ModelLayers.cpp). Each sees L with its
  // inputs resolved and In set, and fills Out and the type's parameters.
  void parseWindow(const YAML::Node &N, Layer &L);
  void parseConv(const YAML::Node &N, Layer &L);
  void parseFc(const YAML::Node &N, Layer &L);
  void parseJoin(const YAML::Node &N, Layer &L, const Graph &G);
  void parseActivation(const YAML::Node &N, Layer &L);
  void parseScale(const YAML::Node &N, Layer &L, const Graph &G);
  /// shuffle and slice: channels moved by a selection conv (makeSelection).
  void parseSelection(const YAML::Node &N, Layer &L);
  void parseBatchNorm(const YAML::Node &N, Layer &L);
  void attachWeights(const YAML::Node &N, Layer &L, const std::vector<uint64_t> &WShape);
  void loadNpy(const YAML::Node &F, const char *Key, const std::vector<uint64_t> &Shape,
               std::vector<float> &Out);
};

} // namespace snow::ir::detail

#endif
