//===- RoundTripTest.cpp - snowdis | snowasm gives back the same prog.bin -===//
//
// For every model in models/*.yaml: compile with snowc, print with snowdis
// (its default listing, saved as a user would with "> p.s"), assemble with
// snowasm and compare the two files byte for byte: header, hardware
// configuration, code, layer table, tensors, the whole DRAM image and the
// CRC. The models are found by listing models/, so a new model is covered
// without touching this file. Also pins what --no-data promises: a readable
// listing that says it does not round-trip.
//
// Model instances named Long/... are the biggest (VGG-16's image is ~276 MB,
// so its listing is ~370 MB); they carry the ctest label `long`
// (tests/CMakeLists.txt): `ctest -L long` runs them, CI (`-LE long`) does not.
//
//===----------------------------------------------------------------------===//

#include "ToolHarness.h"

#include <algorithm>
#include <chrono>

using namespace snow::test;

namespace {

/// Models whose round trip takes more than a few seconds here (compile
/// included); measured numbers are in docs/assembly.md.
const std::set<std::string> LongModels = {"vgg16"};

std::vector<std::string> modelNames(bool Long) {
  std::vector<std::string> Names;
  for (const auto &E : fs::directory_iterator(SourceDir + "/models"))
    if (E.path().extension() == ".yaml" && LongModels.count(E.path().stem().string()) == Long)
      Names.push_back(E.path().stem().string());
  std::sort(Names.begin(), Names.end());
  return Names;
}

class ModelRoundTrip : public ToolTest, public ::testing::WithParamInterface<std::string> {};

double secondsSince(std::chrono::steady_clock::time_point T0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
}

TEST_P(ModelRoundTrip, DisassembleThenAssembleGivesIdenticalBytes) {
  const std::string Model = SourceDir + "/models/" + GetParam() + ".yaml";
  ASSERT_TRUE(succeeded(run("snowc", {Model, "-o", "prog.bin"})));

  auto T0 = std::chrono::steady_clock::now();
  ToolResult Dis = run("snowdis", {"prog.bin"});
  ASSERT_TRUE(succeeded(Dis));
  write("p.s", Dis.Out);
  double DisSeconds = secondsSince(T0);
  T0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(succeeded(run("snowasm", {"p.s", "-o", "p2.bin"})));
  double AsmSeconds = secondsSince(T0);

  std::string A = read("prog.bin"), B = read("p2.bin");
  ASSERT_EQ(A.size(), B.size()) << "p2.bin has another size than prog.bin";
  auto Diff = std::mismatch(A.begin(), A.end(), B.begin());
  EXPECT_TRUE(Diff.first == A.end())
      << "first difference at byte " << (Diff.first - A.begin()) << " of " << A.size();
  // The listing is the text a person reads: the model's own names, not codes.
  EXPECT_NE(Dis.Out.find(".model " + GetParam() + "\n"), std::string::npos);
  EXPECT_NE(Dis.Out.find(".hw\n  name: zc706\n"), std::string::npos);
  if (std::getenv("SNOW_TEST_VERBOSE"))
    std::cerr << GetParam() << ": prog.bin " << A.size() << " bytes, listing " << Dis.Out.size()
              << " bytes, snowdis (+ saving p.s) " << DisSeconds << " s, snowasm " << AsmSeconds
              << " s\n";
}

INSTANTIATE_TEST_SUITE_P(Models, ModelRoundTrip, ::testing::ValuesIn(modelNames(false)),
                         [](const auto &Info) { return Info.param; });
INSTANTIATE_TEST_SUITE_P(Long, ModelRoundTrip, ::testing::ValuesIn(modelNames(true)),
                         [](const auto &Info) { return Info.param; });

class RoundTrip : public ToolTest {};

TEST_F(RoundTrip, ExplicitHwMustAgreeWithTheListing) {
  compileTiny("t.bin", "mini64");
  ToolResult Dis = run("snowdis", {"t.bin", "--no-pc"});
  ASSERT_TRUE(succeeded(Dis));
  write("t.s", Dis.Out);
  // The listing carries its hardware: no --hw needed, and the same one is fine.
  ASSERT_TRUE(succeeded(run("snowasm", {"t.s", "-o", "a.bin"})));
  ASSERT_TRUE(succeeded(run("snowasm", {"t.s", "-o", "b.bin", "--hw", "mini64"})));
  EXPECT_EQ(read("a.bin"), read("t.bin"));
  EXPECT_EQ(read("b.bin"), read("t.bin"));
  // Another one is a contradiction, reported at the .hw line.
  ToolResult R = run("snowasm", {"t.s", "-o", "c.bin", "--hw", "zc706"});
  EXPECT_TRUE(isCleanError(R, {"t.s:3:", "'mini64'", "'zc706'"}));
  EXPECT_FALSE(exists("c.bin"));
}

TEST_F(RoundTrip, NoDataListingSaysItDoesNotRoundTrip) {
  compileTiny("t.bin");
  ToolResult R = run("snowdis", {"t.bin", "--no-data"});
  ASSERT_TRUE(succeeded(R));
  EXPECT_NE(R.Out.find("does\n# NOT assemble back to the same prog.bin"), std::string::npos) << R;
  EXPECT_NE(R.Out.find("left out (--no-data): this listing does not round-trip"), std::string::npos)
      << R;
  EXPECT_EQ(R.Out.find(".base64"), std::string::npos) << R;
  EXPECT_TRUE(isCleanError(run("snowdis", {"t.bin", "--no-data", "--data"}), {"--no-data"}));
}

TEST_F(RoundTrip, AssemblerErrorsNameFileLineAndText) {
  compileTiny("t.bin");
  ToolResult Dis = run("snowdis", {"t.bin"});
  ASSERT_TRUE(succeeded(Dis));
  // Damage one base64 line of the listing: the error names its line.
  std::string Text = Dis.Out;
  size_t At = Text.find(".base64 ");
  ASSERT_NE(At, std::string::npos);
  Text[At + 10] = '*';
  write("bad.s", Text);
  unsigned Line = unsigned(std::count(Text.begin(), Text.begin() + At, '\n')) + 1;
  ToolResult R = run("snowasm", {"bad.s", "-o", "bad.bin"});
  EXPECT_TRUE(isCleanError(R, {"bad.s:" + std::to_string(Line) + ":", "'*'", "column 3"}));
  EXPECT_FALSE(exists("bad.bin"));
}

} // namespace
