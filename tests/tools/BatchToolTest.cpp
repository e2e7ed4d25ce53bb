//===- BatchToolTest.cpp - snowc --batch, snowsim on batched programs -----===//
//
// A batched program runs once for exactly its frames: snowsim refuses any
// other frame count in one line that says how to fix it, writes (N, C, H, W)
// outputs, and --stats-json carries the batch and per-frame figures.
//
//===----------------------------------------------------------------------===//

#include "ToolHarness.h"
#include "llvm/Support/JSON.h"

using namespace snow::test;

namespace {
class BatchTool : public ToolTest {};

/// N frames of tiny's input (3x32x32), float32, as makeNpy wants them.
std::string frames(uint64_t N) {
  std::string Data;
  for (uint64_t I = 0; I < N * 3 * 32 * 32; ++I) {
    float V = float(int(I * 7919 % 2001) - 1000) / 1000.0f;
    Data.append(reinterpret_cast<const char *>(&V), 4);
  }
  return makeNpy("<f4", {N, 3, 32, 32}, Data);
}
} // namespace

TEST_F(BatchTool, RefusesAnotherFrameCount) {
  ASSERT_TRUE(succeeded(run("snowc", {tinyModel(), "--batch", "4", "-o", "p.bin"})));
  write("x3.npy", frames(3));
  expectCleanError("snowsim", {"p.bin", "--input", "x3.npy"},
                   {"x3.npy", "holds 3 frames", "batch of 4", "--batch 4"});
  write("x4.npy", frames(4));
  ToolResult R = run("snowsim", {"p.bin", "--input", "x4.npy", "--output", "y.npy", "--stats-json",
                                 "s.json", "--quiet"});
  ASSERT_TRUE(succeeded(R));
  EXPECT_NE(read("y.npy").find("(4, 40, 8, 16)"), std::string::npos) << "a (N, C, H, W) output";
  auto J = llvm::json::parse(read("s.json"));
  ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
  const llvm::json::Object *Total = J->getAsObject()->getObject("total");
  ASSERT_TRUE(Total);
  EXPECT_EQ(Total->getInteger("batch").getValueOr(0), 4);
  double BatchMs = *Total->getNumber("batch_ms"), FrameMs = *Total->getNumber("frame_ms");
  EXPECT_DOUBLE_EQ(FrameMs * 4, BatchMs);
  EXPECT_NEAR(*Total->getNumber("fps"), 4e3 / BatchMs, 1e-6 * *Total->getNumber("fps"));
  EXPECT_EQ(Total->getString("scope").getValueOr("").str(),
            "whole network, batch 4, int16, 1 MAC = 2 ops");
  // The listing carries the batch, and assembles back to the same bytes.
  ToolResult Dis = run("snowdis", {"p.bin"});
  ASSERT_TRUE(succeeded(Dis));
  EXPECT_NE(Dis.Out.find("\n.batch 4\n"), std::string::npos);
  write("p.s", Dis.Out);
  ASSERT_TRUE(succeeded(run("snowasm", {"p.s", "-o", "q.bin"})));
  EXPECT_EQ(read("p.bin"), read("q.bin"));
}
