//===- KeepApartTest.cpp - A merged conv's member as a conv of its own -----===//
//
// canonicalize() merges sibling convs (an inception block's 1x1 branches);
// snowc --layer-off MEMBER=apart, and --tune, compute one member as a conv
// of its own again (ir::keepApart). The graph must keep every channel's
// weights, bias and format, so the program stays bit-exact against the
// reference executor, which runs the graph merged.
//
//===----------------------------------------------------------------------===//

#include "PassHarness.h"

using namespace snow;
using namespace snow::test;

namespace {

/// An inception block: three 1x1 convs read the input (merged, b1 only
/// with one format: it writes into the concat), a 3x3 and a 5x5 branch, a
/// pool with its projection, and a conv after the concat.
const std::string Inception = header("inception", 96, 14, 14) + R"(
  - {name: b1, type: conv, out_channels: 112, kernel: 1, relu: true}
  - {name: b3r, type: conv, input: data, out_channels: 80, kernel: 1, relu: true}
  - {name: b3, type: conv, out_channels: 96, kernel: 3, pad: 1, relu: true}
  - {name: b5r, type: conv, input: data, out_channels: 24, kernel: 1, relu: true}
  - {name: b5, type: conv, out_channels: 32, kernel: 5, pad: 2, relu: true}
  - {name: bp, type: maxpool, input: data, kernel: 3, stride: 1, pad: 1}
  - {name: bpp, type: conv, out_channels: 32, kernel: 1, relu: true}
  - {name: cat, type: concat, inputs: [b1, b3, b5, bpp]}
  - {name: head, type: conv, out_channels: 64, kernel: 1}
)";

ir::Graph canonical(bool OneFormat) {
  auto G = ir::parseModel(Inception, "test.yaml");
  EXPECT_TRUE(bool(G)) << llvm::toString(G.takeError());
  EXPECT_FALSE(bool(ir::canonicalize(*G, {OneFormat})));
  return std::move(*G);
}

const ir::Layer *find(const ir::Graph &G, const std::string &Name) {
  auto It = llvm::find_if(G.Layers, [&](const ir::Layer &L) { return L.Name == Name; });
  return It == G.Layers.end() ? nullptr : &*It;
}

std::string errorOf(llvm::Error E) { return E ? llvm::toString(std::move(E)) : std::string(); }

} // namespace

TEST(KeepApart, TheMemberTakesItsChannelsAndTheMergedConvTheRest) {
  ir::Graph G = canonical(/*OneFormat=*/true);
  const ir::Layer *M = find(G, "b1+b3r+b5r");
  ASSERT_NE(M, nullptr) << "the three 1x1 convs no longer merge: the test shows nothing";
  const std::vector<float> W = M->Weights, B = M->Bias;
  const size_t Row = 96; // input channels of a 1x1 conv
  ASSERT_FALSE(bool(ir::keepApart(G, "b3r")));
  const ir::Layer *B3r = find(G, "b3r"), *Rest = find(G, "b1+b5r");
  ASSERT_NE(B3r, nullptr);
  ASSERT_NE(Rest, nullptr);
  EXPECT_EQ(B3r->Kind, ir::LayerKind::Conv);
  EXPECT_EQ(B3r->Out.C, 80u);
  EXPECT_EQ(B3r->input(), -1) << "it reads what the merged conv reads";
  EXPECT_EQ(B3r->Weights, std::vector<float>(W.begin() + 112 * Row, W.begin() + 192 * Row));
  EXPECT_EQ(B3r->Bias, std::vector<float>(B.begin() + 112, B.begin() + 192));
  EXPECT_EQ(Rest->Out.C, 136u);
  EXPECT_EQ(find(G, "b5r")->SliceBegin, 112u) << "b5r's channels follow b1's now";
  EXPECT_EQ(find(G, "b5r")->In.C, 136u);
  // The last but one member apart: the merged conv is b1's conv again.
  ASSERT_FALSE(bool(ir::keepApart(G, "b5r")));
  const ir::Layer *B1 = find(G, "b1");
  ASSERT_NE(B1, nullptr);
  EXPECT_EQ(B1->Kind, ir::LayerKind::Conv);
  EXPECT_EQ(B1->Out.C, 112u);
  EXPECT_EQ(B1->Weights, std::vector<float>(W.begin(), W.begin() + 112 * Row));
  for (size_t I = 0; I < G.Layers.size(); ++I)
    for (int In : G.Layers[I].Inputs)
      EXPECT_LT(In, int(I)) << G.Layers[I].Name << " reads a later layer";
  EXPECT_EQ(find(G, "cat")->Inputs.front(), int(B1 - G.Layers.data())) << "the concat reads b1";
}

TEST(KeepApart, ALayerThatIsNoMemberIsAnError) {
  ir::Graph G = canonical(/*OneFormat=*/true);
  for (const char *Name : {"b3", "head", "cat"})
    EXPECT_NE(errorOf(ir::keepApart(G, Name)).find("no member of a conv merged"), std::string::npos)
        << Name;
  EXPECT_NE(errorOf(ir::keepApart(G, "nosuch")).find("'nosuch'"), std::string::npos);
  ASSERT_FALSE(bool(ir::keepApart(G, "b3r")));
  EXPECT_NE(errorOf(ir::keepApart(G, "b3r")).find("no member"), std::string::npos)
      << "a member kept apart is a conv of its own";
  // The compiler refuses a member kept apart in a graph that still merges
  // it (applyApart was not run).
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  ir::Graph Merged = canonical(/*OneFormat=*/true);
  ir::quantize(Merged, int(Hw->ActFracBits));
  compiler::CompileOptions O;
  ASSERT_FALSE(bool(compiler::addLayerOff("b5r=apart", O)));
  auto P = compiler::compile(Merged, *Hw, O);
  ASSERT_FALSE(bool(P));
  EXPECT_NE(llvm::toString(P.takeError()).find("keeps layer 'b5r' apart"), std::string::npos);
}

TEST(KeepApart, EveryMemberApartIsBitExact) {
  // With one format every 1x1 conv merges; with calibrated formats b3r and
  // b5r (b1 writes into the concat), whose merged conv's one format the
  // member apart keeps. The reference runs the graph merged.
  struct Case {
    bool OneFormat;
    std::vector<std::string> Apart;
  };
  const Case Cases[] = {{true, {"b1"}},         {true, {"b3r"}},  {true, {"b5r"}},
                        {true, {"b3r", "b5r"}}, {false, {"b3r"}}, {false, {"b5r"}}};
  for (const char *Hw : {"zc706", "mini64"})
    for (const Case &C : Cases) {
      compiler::CompileOptions O;
      for (const std::string &Name : C.Apart)
        ASSERT_FALSE(bool(compiler::addLayerOff(Name + "=apart", O)));
      SCOPED_TRACE(::testing::Message() << Hw << (C.OneFormat ? " one format " : " calibrated ")
                                        << ::testing::PrintToString(C.Apart));
      RunResult Merged, Apart;
      ASSERT_TRUE(runModel(Inception, Hw, Merged, {}, false, C.OneFormat));
      ASSERT_TRUE(runModel(Inception, Hw, Apart, O, false, C.OneFormat));
      EXPECT_TRUE(sameBits(Apart));
      EXPECT_EQ(Apart.Sim, Merged.Sim);
      EXPECT_NE(isa::serialize(Apart.Prog), isa::serialize(Merged.Prog)) << "nothing was apart";
    }
}
