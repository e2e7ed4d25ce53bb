//===- SweepSpecTest.cpp - --set, --shard and the cartesian product -------===//
//
// What a sweep covers is decided here, before any compile: a wrong product
// or a shard split that drops or repeats a task would silently bias every
// plot made from the results.
//
//===----------------------------------------------------------------------===//

#include "snow/explore/SweepSpec.h"

#include <gtest/gtest.h>
#include <set>

using namespace snow;
using namespace snow::explore;

namespace {

std::string errorOf(llvm::Error E) { return llvm::toString(std::move(E)); }
template <typename T> std::string errorOf(llvm::Expected<T> E) {
  return E ? std::string() : llvm::toString(E.takeError());
}

SetArg set(const std::string &Text) {
  auto A = parseSetArg(Text);
  EXPECT_TRUE(bool(A)) << (A ? "" : llvm::toString(A.takeError()));
  return A ? *A : SetArg();
}

} // namespace

TEST(SetArg, ParsesKeyAndValuesInOrder) {
  SetArg A = set("dram_gbps=4.2, 12.8,1e3");
  EXPECT_EQ(A.Key, "dram_gbps");
  EXPECT_EQ(A.Values, (std::vector<std::string>{"4.2", "12.8", "1e3"}));
  EXPECT_EQ(set("clusters=2").Values, (std::vector<std::string>{"2"}));
}

TEST(SetArg, MalformedListsAreErrorsNamingTheArgument) {
  EXPECT_NE(errorOf(parseSetArg("clusters")).find("expected KEY=V1,V2"), std::string::npos);
  EXPECT_NE(errorOf(parseSetArg("=1,2")).find("expected KEY=V1,V2"), std::string::npos);
  EXPECT_NE(errorOf(parseSetArg("clusters=1,,2")).find("empty value"), std::string::npos);
  EXPECT_NE(errorOf(parseSetArg("clusters=")).find("empty value"), std::string::npos);
  EXPECT_NE(errorOf(parseSetArg("clusters=1,2,1")).find("'1' is listed twice"), std::string::npos);
}

TEST(SetArg, KeysAndTypesAreCheckedByTheHardwareParser) {
  EXPECT_EQ(errorOf(checkSetArgs({set("clusters=1,2"), set("dram_gbps=4.2,12.8")})), "");
  std::string Unknown = errorOf(checkSetArgs({set("cluster=1,2")}));
  EXPECT_NE(Unknown.find("unknown key 'cluster'"), std::string::npos) << Unknown;
  EXPECT_NE(Unknown.find("did you mean 'clusters'"), std::string::npos) << Unknown;
  std::string Type = errorOf(checkSetArgs({set("clusters=1,two")}));
  EXPECT_NE(Type.find("'two'"), std::string::npos) << Type;
  EXPECT_NE(errorOf(checkSetArgs({set("clusters=1"), set("clusters=2")})).find("set twice"),
            std::string::npos);
  EXPECT_NE(errorOf(checkSetArgs({set("name=a,b")})).find("cannot be swept"), std::string::npos);
}

TEST(SetArg, OutOfRangeValuesAreNotUserErrors) {
  // Impossible hardware is a result (an invalid point), not a typo.
  EXPECT_EQ(errorOf(checkSetArgs({set("clusters=0,17")})), "");
}

TEST(Shard, ParsesOneBasedIndexAndCount) {
  auto S = parseShard("3/8");
  ASSERT_TRUE(bool(S));
  EXPECT_EQ(S->Index, 3u);
  EXPECT_EQ(S->Count, 8u);
  EXPECT_EQ(S->str(), "3/8");
  for (const char *Bad : {"0/4", "5/4", "1/0", "3", "a/b", "2/", "/2", "-1/4"})
    EXPECT_FALSE(errorOf(parseShard(Bad)).empty()) << Bad;
}

TEST(Shard, EveryTaskBelongsToExactlyOneShard) {
  for (unsigned N : {1u, 2u, 3u, 7u})
    for (uint64_t Task = 0; Task < 50; ++Task) {
      unsigned Owners = 0;
      for (unsigned I = 1; I <= N; ++I)
        Owners += Shard{I, N}.owns(Task);
      EXPECT_EQ(Owners, 1u) << "task " << Task << " with " << N << " shards";
    }
}

TEST(Product, OdometerOrderLastSetFastest) {
  auto P = cartesianProduct({set("clusters=1,2"), set("lanes_per_vmac=8,16,32")});
  ASSERT_EQ(P.size(), 6u);
  std::vector<std::string> Labels;
  for (const SweepPoint &X : P)
    Labels.push_back(X.label());
  EXPECT_EQ(Labels, (std::vector<std::string>{
                        "clusters=1;lanes_per_vmac=8", "clusters=1;lanes_per_vmac=16",
                        "clusters=1;lanes_per_vmac=32", "clusters=2;lanes_per_vmac=8",
                        "clusters=2;lanes_per_vmac=16", "clusters=2;lanes_per_vmac=32"}));
  for (unsigned I = 0; I < P.size(); ++I)
    EXPECT_EQ(P[I].Index, I);
}

TEST(Product, SizeIsTheProductAndPointsAreDistinct) {
  auto P = cartesianProduct({set("clusters=1,2"), set("vmacs_per_cu=2,4,8"),
                             set("dram_gbps=1,2,4,8"), set("clock_mhz=250")});
  EXPECT_EQ(P.size(), 2u * 3 * 4 * 1);
  std::set<std::string> Labels;
  for (const SweepPoint &X : P)
    Labels.insert(X.label());
  EXPECT_EQ(Labels.size(), P.size());
}

TEST(Product, NoSetIsTheBaseAlone) {
  auto P = cartesianProduct({});
  ASSERT_EQ(P.size(), 1u);
  EXPECT_EQ(P[0].label(), "base");
}

TEST(Point, ReplacesOnlyTheSweptKeysOfTheBase) {
  auto Base = isa::loadHwConfig("big1024");
  ASSERT_TRUE(bool(Base));
  SweepPoint P;
  P.Values = {{"dram_gbps", "6.4"}, {"clusters", "1"}};
  auto C = pointConfig(*Base, P);
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_EQ(C->DramGbps, 6.4);
  EXPECT_EQ(C->Clusters, 1u);
  EXPECT_EQ(C->VmacsPerCu, Base->VmacsPerCu) << "an unswept key must keep the base's value";
  EXPECT_EQ(C->Name, Base->Name);
}

TEST(Point, ImpossibleHardwareIsAnErrorNamingTheKey) {
  auto Base = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Base));
  SweepPoint P;
  P.Values = {{"clusters", "8"}};
  std::string E = errorOf(pointConfig(*Base, P));
  EXPECT_NE(E.find("clusters × cus_per_cluster must be at most 16"), std::string::npos) << E;
  EXPECT_EQ(E.find('\n'), std::string::npos) << "one line";
}
