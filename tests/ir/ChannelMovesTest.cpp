//===- ChannelMovesTest.cpp - YAML's shuffle and slice folded away --------===//
//
// canonicalize() folds the selections a YAML model writes (shuffle, slice)
// into the convs that read them and splits the concats whose readers use
// disjoint channels (compiler/ir/FoldSelections.cpp, ConcatSplit.cpp). The
// folded graph must compute what the graph as written computes: the float
// model of both forms is run on the same input and compared, on two
// ShuffleNet v2 units (stride 1 and stride 2, the second reading a shuffle
// through a depthwise conv), on halves whose fold would cost MACs and on
// 200 random graphs; and the full-size model's counts.
//
//===----------------------------------------------------------------------===//

#include "../support/SameFunction.h"
#include "IrTestUtil.h"
#include "snow/ir/Graph.h"
#include "snow/support/Rng.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace snow::ir;

namespace {

// conv, a stride-1 unit (halves, branch, concat, shuffle), a stride-2 unit
// whose first branch is a depthwise conv of the shuffle, and a 1x1 conv
// reading the last shuffle.
const char *const Units =
    "  - {name: c0, type: conv, out_channels: 8, kernel: 3, pad: 1, relu: true}\n"
    "  - {name: x1, type: slice, begin: 0, channels: 4}\n"
    "  - {name: x2, type: slice, input: c0, begin: 4, channels: 4}\n"
    "  - {name: a1, type: conv, out_channels: 4, kernel: 1, bias: false}\n"
    "  - {name: a1_bn, type: batchnorm}\n"
    "  - {name: a1_r, type: relu}\n"
    "  - {name: a2, type: conv, out_channels: 4, kernel: 3, pad: 1, groups: 4, bias: false}\n"
    "  - {name: a2_bn, type: batchnorm}\n"
    "  - {name: a3, type: conv, out_channels: 4, kernel: 1, relu: true}\n"
    "  - {name: cat1, type: concat, inputs: [x1, a3]}\n"
    "  - {name: sh1, type: shuffle, groups: 2}\n"
    "  - {name: b1, type: conv, out_channels: 8, kernel: 3, stride: 2, pad: 1, groups: 8}\n"
    "  - {name: b2, type: conv, out_channels: 4, kernel: 1, relu: true}\n"
    "  - {name: d1, type: conv, input: sh1, out_channels: 4, kernel: 1, relu: true}\n"
    "  - {name: d2, type: conv, out_channels: 4, kernel: 3, stride: 2, pad: 1, groups: 4}\n"
    "  - {name: d3, type: conv, out_channels: 4, kernel: 1, relu: true}\n"
    "  - {name: cat2, type: concat, inputs: [b2, d3]}\n"
    "  - {name: sh2, type: shuffle, groups: 2}\n"
    "  - {name: out, type: conv, out_channels: 6, kernel: 1}\n";

Graph canon(bool Fold, const std::string &Layers = Units, const std::string &In = "[3, 8, 8]") {
  Graph G = snow::test::parseOk(snow::test::seededModel(In, "3", Layers));
  CanonOptions O;
  O.FoldChannelMoves = Fold;
  if (llvm::Error E = canonicalize(G, O))
    ADD_FAILURE() << llvm::toString(std::move(E));
  return G;
}

size_t countType(const Graph &G, const std::string &Type) {
  size_t N = 0;
  for (const Layer &L : G.Layers)
    N += L.TypeName == Type;
  return N;
}

/// A random model of stride-1 layers (so any two maps can be concatenated)
/// over a 6x6 input: convs (1x1 or 3x3, group 1 or depthwise), shuffles,
/// slices, concats, max pools, batchnorms and relus, each reading a random
/// earlier layer, and a 1x1 conv over the last one.
std::string randomModel(uint64_t Seed) {
  snow::Rng R(Seed);
  auto Pick = [&](uint64_t N) { return N ? R.next() % N : 0; };
  std::vector<std::pair<std::string, uint32_t>> Maps = {{"data", 8}};
  std::string Y;
  for (unsigned I = 0; I < 12; ++I) {
    // Mostly the newest maps, so that chains of moves form.
    const auto &[In, C] = Maps[Maps.size() - 1 - Pick(std::min<uint64_t>(Maps.size(), 3))];
    const std::string Name = fmt::format("l{}", I);
    std::string Last = Name; // what later layers read
    uint32_t Out = C;
    switch (Pick(8)) {
    case 0: { // A conv with group 1, its batchnorm and relu as layers.
      const unsigned K = Pick(2) ? 3 : 1;
      Out = 2 + 2 * uint32_t(Pick(4));
      Y += fmt::format("  - {{name: {}, type: conv, input: {}, out_channels: {}, kernel: {}, "
                       "pad: {}}}\n",
                       Name, In, Out, K, K / 2);
      if (Pick(2)) {
        Y += fmt::format("  - {{name: {}_bn, type: batchnorm}}\n", Name);
        Last = Name + "_bn";
      }
      if (Pick(2)) {
        Y += fmt::format("  - {{name: {}_r, type: relu}}\n", Name);
        Last = Name + "_r";
      }
      break;
    }
    case 1: // Depthwise.
      Y += fmt::format("  - {{name: {}, type: conv, input: {}, out_channels: {}, kernel: 3, pad: "
                       "1, groups: {}}}\n",
                       Name, In, C, C);
      break;
    case 2:
    case 3: { // A shuffle of a divisor of C (at least 2 channels).
      if (C < 2) {
        Y += fmt::format("  - {{name: {}, type: relu, input: {}}}\n", Name, In);
        break;
      }
      uint32_t G = 2;
      while (C % G != 0 || (G < C && Pick(2)))
        ++G;
      Y += fmt::format("  - {{name: {}, type: shuffle, input: {}, groups: {}}}\n", Name, In, G);
      break;
    }
    case 4:
    case 5: { // A slice.
      Out = 1 + uint32_t(Pick(C));
      Y += fmt::format("  - {{name: {}, type: slice, input: {}, begin: {}, channels: {}}}\n", Name,
                       In, Pick(C - Out + 1), Out);
      break;
    }
    case 6: { // A concat with another map.
      const auto &[Other, OC] = Maps[Pick(Maps.size())];
      Out = C + OC;
      Y += fmt::format("  - {{name: {}, type: concat, inputs: [{}, {}]}}\n", Name, In, Other);
      break;
    }
    default:
      Y += fmt::format("  - {{name: {}, type: maxpool, input: {}, kernel: 3, stride: 1, pad: 1}}\n",
                       Name, In);
    }
    Maps.push_back({Last, Out});
  }
  Y += fmt::format("  - {{name: out, type: conv, input: {}, out_channels: 5, kernel: 1}}\n",
                   Maps.back().first);
  return Y;
}

} // namespace

// Random graphs: whatever reads a selection (a conv of either kind, a pool,
// a concat, another selection, several of them), the folded graph computes
// what the graph as written computes.
TEST(ChannelMoves, RandomGraphsComputeWhatTheyAreWritten) {
  unsigned Folded = 0;
  for (uint64_t Seed = 1; Seed <= 200; ++Seed) {
    const std::string Layers = randomModel(Seed);
    Graph A = canon(false, Layers, "[8, 6, 6]"), B = canon(true, Layers, "[8, 6, 6]");
    if (A.Layers.empty() || B.Layers.empty())
      continue;
    Folded += B.macs() < A.macs();
    snow::test::expectSameFunction(A, B, fmt::format("seed {}:\n{}", Seed, Layers));
    if (HasFatalFailure())
      return;
  }
  EXPECT_GT(Folded, 100u) << "most random graphs have a move to fold";
}

TEST(ChannelMoves, FoldedUnitsComputeWhatTheyAreWritten) {
  Graph Written = canon(false), Folded = canon(true);
  // As written: two slices and two shuffles, each a 1x1 conv of its own.
  EXPECT_EQ(countType(Written, "slice"), 2u);
  EXPECT_EQ(countType(Written, "shuffle"), 2u);
  // Folded: the shuffles and the half read by a conv are gone; the half
  // passed on to the concat stays a selection.
  EXPECT_EQ(countType(Folded, "shuffle"), 0u);
  EXPECT_EQ(countType(Folded, "slice") + countType(Folded, "select"), 1u);
  EXPECT_LT(Folded.macs(), Written.macs());
  ASSERT_EQ(Written.output().Out.elems(), 6u * 4 * 4);
  snow::test::expectSameFunction(Written, Folded, "units");
}

// A half read by a 3x3 conv of many outputs stays a selection: folded, the
// conv would read all 16 channels (16 x 32 x 9 MACs a position more than
// the 8 x 16 the selection costs). A 1x1 conv of two outputs reading the
// other half takes it into its weights (2 x 8 more).
TEST(ChannelMoves, AFoldNeverCostsMoreMacsThanTheSelection) {
  const std::string Layers = "  - {name: c0, type: conv, out_channels: 16, kernel: 1}\n"
                             "  - {name: h, type: slice, begin: 8, channels: 8}\n"
                             "  - {name: big, type: conv, out_channels: 32, kernel: 3, pad: 1}\n"
                             "  - {name: h2, type: slice, input: c0, begin: 0, channels: 8}\n"
                             "  - {name: small, type: conv, out_channels: 2, kernel: 1}\n"
                             "  - {name: cat, type: concat, inputs: [big, small]}\n";
  Graph Written = canon(false, Layers, "[8, 6, 6]"), Folded = canon(true, Layers, "[8, 6, 6]");
  EXPECT_EQ(countType(Folded, "slice"), 1u);
  for (const Layer &L : Folded.Layers) {
    if (L.Name == "big") {
      EXPECT_EQ(Folded.Layers[size_t(L.input())].Name, "h");
    }
    if (L.Name == "small") {
      EXPECT_EQ(Folded.Layers[size_t(L.input())].Name, "c0");
    }
  }
  EXPECT_LT(Folded.macs(), Written.macs());
  snow::test::expectSameFunction(Written, Folded, "halves");
}

// Four stride-1 units in a chain (relus as layers of their own, as
// models/shufflenet_v2_x1_0.yaml writes them), then a stride-2 unit whose
// first branch is a depthwise conv of the last shuffle: the half each unit passes on from
// the second on is no selection (PassThrough.cpp), the depthwise conv takes
// the concat's order, and the graph computes what it is written to.
TEST(ChannelMoves, HalvesPassedOnAreNotCopied) {
  std::string Layers =
      "  - {name: c0, type: conv, out_channels: 16, kernel: 3, pad: 1, relu: true}\n"
      "  - {name: x0, type: slice, begin: 0, channels: 8}\n";
  std::string Prev = "c0";
  for (int U = 0; U < 4; ++U) {
    Layers += fmt::format(
        "  - {{name: a{0}, type: slice, input: {1}, begin: {2}, channels: 8}}\n"
        "  - {{name: b{0}, type: slice, input: {1}, begin: 8, channels: 8}}\n"
        "  - {{name: p{0}, type: conv, out_channels: 8, kernel: 1}}\n"
        "  - {{name: p{0}_r, type: relu}}\n"
        "  - {{name: d{0}, type: conv, out_channels: 8, kernel: 3, pad: 1, groups: 8}}\n"
        "  - {{name: d{0}_bn, type: batchnorm}}\n"
        "  - {{name: q{0}, type: conv, out_channels: 8, kernel: 1}}\n"
        "  - {{name: q{0}_r, type: relu}}\n"
        "  - {{name: cat{0}, type: concat, inputs: [a{0}, q{0}_r]}}\n"
        "  - {{name: sh{0}, type: shuffle, groups: 2}}\n",
        U, Prev, 0);
    Prev = fmt::format("sh{}", U);
  }
  Layers +=
      "  - {name: s1, type: conv, out_channels: 16, kernel: 3, stride: 2, pad: 1, groups: 16}\n"
      "  - {name: s2, type: conv, out_channels: 8, kernel: 1, relu: true}\n"
      "  - {name: t1, type: conv, input: " +
      Prev +
      ", out_channels: 8, kernel: 1, relu: true}\n"
      "  - {name: t2, type: conv, out_channels: 8, kernel: 3, stride: 2, pad: 1, groups: 8}\n"
      "  - {name: cat9, type: concat, inputs: [s2, t2]}\n"
      "  - {name: out, type: conv, out_channels: 6, kernel: 1}\n";
  Graph Written = canon(false, Layers, "[3, 8, 8]"), Folded = canon(true, Layers, "[3, 8, 8]");
  // Unit 0's half is a selection of c0, a conv (no concat to stand in its
  // place); every later one is gone.
  size_t Selections = 0;
  for (const Layer &L : Folded.Layers)
    if (L.isChannelCopy()) {
      ++Selections;
      EXPECT_EQ(Folded.Layers[size_t(L.input())].Name, "c0") << L.Name;
    }
  EXPECT_GE(Selections, 1u);
  // Only unit 0's first conv reads channels it multiplies by zero (all of
  // c0, which FoldSelections.cpp allows where it costs no more than the
  // selection: 8 outputs x 8 more inputs x 64 pixels); every later unit's
  // convs read just their concat parts.
  EXPECT_EQ(Folded.usefulMacs(), Written.usefulMacs() + 8 * 8 * 64);
  // The last unit's concat parts take inputs from every unit before.
  size_t Widest = 0;
  for (const Layer &L : Folded.Layers)
    if (L.Kind == LayerKind::Concat)
      Widest = std::max(Widest, L.Inputs.size());
  EXPECT_GE(Widest, 4u);
  // Each branch conv's parts, read by concats of other units, merge back
  // into it, whose name it has again (one format, as before the split):
  // only slices are parts.
  for (const Layer &L : Folded.Layers)
    if (L.Name.find("_part") != std::string::npos) {
      EXPECT_TRUE(L.Kind == LayerKind::Slice || L.Kind == LayerKind::Concat) << L.Name;
    }
  EXPECT_GT(
      llvm::count_if(Folded.Layers, [](const Layer &L) { return L.Kind == LayerKind::Slice; }), 4);
  snow::test::expectSameFunction(Written, Folded, "chain");
}

TEST(ChannelMoves, FoldingIsAFixedPoint) {
  Graph G = canon(true);
  const size_t Layers = G.Layers.size();
  const uint64_t Macs = G.macs();
  ASSERT_FALSE(bool(canonicalize(G)));
  EXPECT_EQ(G.Layers.size(), Layers);
  EXPECT_EQ(G.macs(), Macs);
}

// models/shufflenet_v2_x1_0.yaml: as written its convs and fc are
// torchvision's (144,907,992 MACs, 2,278,604 parameters with the batchnorms'
// scales and shifts), beside the selections; folded, no selection is left:
// the halves passed on are the parts of the concats before them
// (PassThrough.cpp), 13 selections of 2,637,376 MACs each before.
TEST(ChannelMoves, ShuffleNetV2CountsAsTorchvisionAndFoldsItsMoves) {
  auto Loaded = loadModel(SNOW_SOURCE_DIR "/models/shufflenet_v2_x1_0.yaml");
  ASSERT_TRUE(bool(Loaded)) << llvm::toString(Loaded.takeError());
  Graph G = std::move(*Loaded);
  EXPECT_EQ(G.usefulMacs(), 144907992u);
  EXPECT_EQ(G.usefulParams(), 2278604u);
  EXPECT_EQ(G.macs(), 450843608u) << "the selections as written, 1x1 convs";
  ASSERT_FALSE(bool(canonicalize(G)));
  uint64_t Selected = 0;
  for (const Layer &L : G.Layers)
    if (L.TypeName == "select" || L.TypeName == "slice" || L.TypeName == "shuffle")
      Selected += L.macs();
  EXPECT_EQ(Selected, 0u);
  EXPECT_EQ(G.macs(), 144907992u);
  EXPECT_EQ(G.usefulMacs(), 144907992u) << "the network's work, from either form";
  EXPECT_EQ(G.output().Out, (Shape{1000, 1, 1}));
}
