//===- AlignSlicesTest.cpp - Sliced convs' channels in whole output groups -===//
//
// compiler/ir/AlignSlices.cpp orders the output channels of a conv read only
// through slices so that its output groups cut the slices where storing
// them costs least (ir::sliceCutCost). The graph must compute what it
// computed (the float model of both is run on one input and compared),
// every slice must stay one run of its conv's channels, and the order must
// cost less where it moves anything: on ShuffleNet v2 as snowc compiles it
// for zc706 (groups of 64, bursts of 32 channels), on 200 random graphs of
// sliced convs and on a conv whose slices cannot all fit.
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

/// Slices of at most Group channels that a multiple of Group cuts, over
/// every conv read through slices.
unsigned cutSlices(const Graph &G, unsigned Group) {
  unsigned N = 0;
  for (const Layer &L : G.Layers)
    if (L.Kind == LayerKind::Slice && L.Out.C <= Group && L.Out.C > 0)
      N += L.SliceBegin / Group != (L.SliceBegin + L.Out.C - 1) / Group;
  return N;
}

/// Each conv's slices still lie inside it and do not overlap.
void expectSlicesDisjoint(const Graph &G, const std::string &What) {
  for (size_t X = 0; X < G.Layers.size(); ++X) {
    std::vector<bool> Used(G.Layers[X].Out.C, false);
    for (const Layer &S : G.Layers) {
      if (S.Kind != LayerKind::Slice || S.input() != int(X))
        continue;
      ASSERT_LE(S.SliceBegin + S.Out.C, G.Layers[X].Out.C) << What << ": " << S.Name;
      for (unsigned C = S.SliceBegin; C < S.SliceBegin + S.Out.C; ++C) {
        EXPECT_FALSE(Used[C]) << What << ": " << S.Name << " overlaps at channel " << C;
        Used[C] = true;
      }
    }
  }
}

/// Sibling 3x3 convs of Sizes channels over an 8-channel 5x5 input, each
/// read by a 1x1 conv of two channels, those concatenated and read by a 1x1
/// conv: canonicalize() merges the siblings into one conv that the 1x1
/// convs read through slices, in the siblings' order (MergeSiblings.cpp).
std::string slicedConv(const std::vector<unsigned> &Sizes) {
  std::string Y, Cat;
  for (size_t I = 0; I < Sizes.size(); ++I) {
    Y += fmt::format("  - {{name: s{0}, type: conv, input: data, out_channels: {1}, kernel: 3, "
                     "pad: 1, relu: true}}\n"
                     "  - {{name: r{0}, type: conv, out_channels: 2, kernel: 1}}\n",
                     I, Sizes[I]);
    Cat += fmt::format("{}r{}", I ? ", " : "", I);
  }
  return Y + "  - {name: cat, type: concat, inputs: [" + Cat + "]}\n" +
         "  - {name: out, type: conv, out_channels: 4, kernel: 1}\n";
}

Graph canon(const std::string &Layers) {
  Graph G = snow::test::parseOk(snow::test::seededModel("[8, 5, 5]", "7", Layers));
  if (llvm::Error E = canonicalize(G))
    ADD_FAILURE() << llvm::toString(std::move(E));
  return G;
}

} // namespace

TEST(AlignSlices, ShuffleNetV2SlicesLieInWholeOutputGroups) {
  auto Loaded = loadModel(SNOW_SOURCE_DIR "/models/shufflenet_v2_x1_0.yaml");
  ASSERT_TRUE(bool(Loaded)) << llvm::toString(Loaded.takeError());
  Graph Before = std::move(*Loaded);
  ASSERT_FALSE(bool(canonicalize(Before)));
  Graph After = Before;
  EXPECT_GT(cutSlices(Before, 64), 10u) << "stage 3 and 4's units cut their halves";
  // Stage 3's first unit's two 1x1 convs (halves of 58 channels, and 29,
  // 14, 7, 4, 2, 1 and 1) fit whole groups: 58 + 4 + 2 and the rest.
  EXPECT_GE(alignSlices(After, 64, 32), 2u);
  EXPECT_LT(sliceCutCost(After, 64, 32), sliceCutCost(Before, 64, 32));
  for (const Layer &L : After.Layers) {
    if (L.Kind == LayerKind::Slice && L.Name.rfind("stage3_0_", 0) == 0) {
      EXPECT_EQ(L.SliceBegin / 64, (L.SliceBegin + L.Out.C - 1) / 64) << L.Name;
    }
  }
  expectSlicesDisjoint(After, "shufflenet");
  snow::test::expectSameFunction(Before, After, "shufflenet_v2_x1_0 with its slices aligned");
  Graph Again = After;
  EXPECT_EQ(alignSlices(Again, 64, 32), 0u) << "aligned once, nothing left to move";
}

// Two to ten random slice sizes (ten: the most whose orders are searched),
// groups of 4 to 16 channels, bursts of 2 to 8: the order found costs less
// where it moves anything, and the graph computes what it did.
TEST(AlignSlices, RandomSlicedConvsComputeWhatTheyDid) {
  snow::Rng R(11);
  unsigned Moved = 0;
  for (unsigned Trial = 0; Trial < 200; ++Trial) {
    const unsigned Group = 4u << (R.next() % 3), Burst = 2u << (R.next() % 3);
    std::vector<unsigned> Sizes(2 + R.next() % 9);
    for (unsigned &S : Sizes)
      S = 1 + unsigned(R.next() % (Group + 2));
    const std::string Layers = slicedConv(Sizes);
    Graph Before = canon(Layers);
    if (Before.Layers.empty())
      return;
    Graph After = Before;
    const unsigned N = alignSlices(After, Group, Burst);
    Moved += N;
    const std::string What = fmt::format("group {}, burst {}:\n{}", Group, Burst, Layers);
    if (N)
      EXPECT_LT(sliceCutCost(After, Group, Burst), sliceCutCost(Before, Group, Burst)) << What;
    else
      EXPECT_EQ(sliceCutCost(After, Group, Burst), sliceCutCost(Before, Group, Burst)) << What;
    expectSlicesDisjoint(After, What);
    snow::test::expectSameFunction(Before, After, What);
    if (HasFatalFailure())
      return;
  }
  EXPECT_GT(Moved, 50u) << "most random convs have slices to move";
}

// Three slices of 3 in groups of 4 cannot all fit: some cut stays, and
// whatever order is kept computes the same.
TEST(AlignSlices, SlicesThatCannotFitStayCorrect) {
  const std::string Layers = slicedConv({3, 3, 3});
  Graph Before = canon(Layers), After = Before;
  alignSlices(After, 4, 2);
  EXPECT_GE(cutSlices(After, 4), 1u);
  EXPECT_LE(sliceCutCost(After, 4, 2), sliceCutCost(Before, 4, 2));
  expectSlicesDisjoint(After, Layers);
  snow::test::expectSameFunction(Before, After, Layers);
}
