//===- CompileSwitchesTest.cpp - The planner's switches, named once -------===//
//
// compileSwitches() is where a planner switch gets its snowc flag
// (--no-NAME), its help and its bit of the planning key, and where the
// switches a single layer may turn off find their members. These tests
// check that the table can be that one place: every name and member once,
// every switch on by default and a bit of the key of its own, and every
// layer switch one of the table's with the same member.
//
//===----------------------------------------------------------------------===//

#include "snow/compiler/Compiler.h"
#include <gtest/gtest.h>
#include <set>
#include <string>

using namespace snow;

TEST(CompileSwitches, EachNamesOneMemberOnByDefaultWithABitOfThePlanningKey) {
  const auto &All = compiler::compileSwitches();
  ASSERT_GE(All.size(), 32u);
  const compiler::CompileOptions Default;
  const std::string Key = Default.planningKey();
  std::set<std::string> Names, Keys;
  for (size_t K = 0; K < All.size(); ++K) {
    const compiler::CompileSwitch &S = All[K];
    SCOPED_TRACE(S.Name);
    EXPECT_TRUE(Names.insert(S.Name).second) << "named twice";
    EXPECT_NE(std::string(S.Name).rfind("no-", 0), 0u) << "the name is the flag without 'no-'";
    EXPECT_GT(std::string(S.Help).size(), 10u) << "snowc --help prints it";
    EXPECT_TRUE(Default.*S.Member) << "a switch is on unless turned off";
    for (size_t J = 0; J < K; ++J)
      EXPECT_NE(All[J].Member, S.Member) << "one member for " << All[J].Name << " too";
    compiler::CompileOptions Off;
    Off.*S.Member = false;
    const std::string OffKey = Off.planningKey();
    EXPECT_NE(OffKey, Key) << "plans cached with it on would be reused with it off";
    EXPECT_TRUE(Keys.insert(OffKey).second) << "shares its bit of the key";
  }
}

TEST(CompileSwitches, LayerSwitchesAreSwitchesOfTheTable) {
  const auto &All = compiler::compileSwitches();
  const auto &Layer = compiler::layerSwitches();
  ASSERT_LE(Layer.size(), 32u) << "LayerTweak::Off holds 32 bits";
  for (const compiler::LayerSwitch &L : Layer) {
    SCOPED_TRACE(L.Name);
    bool Found = false;
    for (const compiler::CompileSwitch &S : All)
      if (std::string(S.Name) == L.Name) {
        Found = true;
        EXPECT_EQ(S.Member, L.Member);
      }
    EXPECT_TRUE(Found);
    // --layer-off takes the name, with or without snowc's "no-".
    compiler::CompileOptions O;
    llvm::Error Err = compiler::addLayerOff(std::string("x=no-") + L.Name, O);
    EXPECT_FALSE(bool(Err)) << llvm::toString(std::move(Err));
  }
}
