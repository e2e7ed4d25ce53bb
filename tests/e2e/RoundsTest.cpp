//===- RoundsTest.cpp - Round summaries against the rounds they summarize -===//
//
// The planner weighs tile shapes, loop orders and packings by a summary of
// their rounds (Rounds.h: summarizeRounds) without building the rounds; the
// lowering builds them (makeRounds). The two must agree, or the cost model
// weighs rounds the program does not run. An internal header: this test
// sees compiler/lib (tests/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "Rounds.h"
#include "snow/support/Rng.h"
#include <gtest/gtest.h>

using namespace snow;
using namespace snow::compiler;

TEST(Rounds, SummariesAreTheRoundsSummarized) {
  Rng R(11);
  unsigned Checked = 0;
  for (int K = 0; K < 3000; ++K) {
    ir::Layer L;
    L.Out.H = 1 + unsigned(R.next() % 40);
    L.Out.W = 1 + unsigned(R.next() % 40);
    LayerPlan P;
    P.L = &L;
    P.R = 1 + unsigned(R.next() % L.Out.H);
    P.Wt = 1 + unsigned(R.next() % L.Out.W);
    P.NRowBlocks = ceilDiv(L.Out.H, P.R);
    P.NColBlocks = ceilDiv(L.Out.W, P.Wt);
    P.Frames = 1 + unsigned(R.next() % 3);
    P.NTiles = P.Frames * P.NRowBlocks * P.NColBlocks;
    P.EvenRows = R.next() % 2;
    P.PixLog = unsigned(R.next() % 3);
    P.Elementwise = R.next() % 4 == 0;
    P.NOg = 1 + unsigned(R.next() % 9);
    P.MapStationary = R.next() % 2;
    const unsigned NCu = 1 + unsigned(R.next() % MaxCus);
    for (Packing How : {Packing::Tiles, Packing::Channels, Packing::Mixed, Packing::Balanced}) {
      LayerPlan Built = P;
      makeRounds(Built, NCu, How);
      const RoundSummary Summary = summarizeRounds(P, NCu, How);
      ASSERT_TRUE(Summary == summarize(Built, NCu))
          << "map " << L.Out.H << "x" << L.Out.W << " tile " << P.R << "x" << P.Wt << " frames "
          << P.Frames << " og " << P.NOg << " cus " << NCu << " packing " << int(How)
          << " map-stationary " << P.MapStationary << " even rows " << P.EvenRows;
      Checked += Summary.Rounds.size();
    }
  }
  EXPECT_GT(Checked, 100000u);
}
