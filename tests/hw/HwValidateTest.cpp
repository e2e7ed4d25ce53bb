//===- HwValidateTest.cpp - One test per validate() rule, at its boundary -===//
//
// Each rule is probed at the limit (accepted) and one step past it (rejected),
// the way timing rules are probed at N-1 and N cycles: a rule that is off by
// one in either direction fails here. Rejections must name the key and quote
// the value, since that is all a user sees.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/HwConfig.h"
#include <cmath>
#include <functional>
#include <gtest/gtest.h>

using namespace snow::isa;

namespace {

/// zc706 with an on-chip budget large enough that rules other than the budget
/// can be probed without tripping it.
HwConfig roomy() {
  HwConfig C;
  C.OnchipBudgetKib = 4194303;
  return C;
}

/// "" if C is valid, else the message.
std::string check(const HwConfig &C) {
  llvm::Error E = validate(C, "where");
  return E ? llvm::toString(std::move(E)) : std::string();
}

::testing::AssertionResult rejects(const HwConfig &C, const std::string &Key,
                                   const std::string &Value) {
  std::string Msg = check(C);
  std::string Prefix = "where: key '" + Key + "': ";
  if (Msg.rfind(Prefix, 0) != 0)
    return ::testing::AssertionFailure() << "expected '" << Prefix << "...', got '" << Msg << "'";
  if (Msg.find("'" + Value + "'") == std::string::npos)
    return ::testing::AssertionFailure() << "value '" << Value << "' not quoted in '" << Msg << "'";
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult accepts(const HwConfig &C) {
  std::string Msg = check(C);
  if (Msg.empty())
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << Msg;
}

HwConfig with(std::function<void(HwConfig &)> Edit, HwConfig C = roomy()) {
  Edit(C);
  return C;
}

TEST(HwValidate, DefaultsAreValid) { EXPECT_TRUE(accepts(HwConfig())); }

TEST(HwValidate, EveryCountMustBePositive) {
  // act_frac_bits is a format, not a count: 0 means integer activations.
  std::vector<std::pair<const char *, unsigned HwConfig::*>> Counts = {
      {"clusters", &HwConfig::Clusters},
      {"cus_per_cluster", &HwConfig::CusPerCluster},
      {"vmacs_per_cu", &HwConfig::VmacsPerCu},
      {"lanes_per_vmac", &HwConfig::LanesPerVmac},
      {"maps_buffer_kib", &HwConfig::MapsBufferKib},
      {"maps_banks", &HwConfig::MapsBanks},
      {"weights_buffer_kib", &HwConfig::WeightsBufferKib},
      {"weights_banks", &HwConfig::WeightsBanks},
      {"acc_entries", &HwConfig::AccEntries},
      {"acc_bits", &HwConfig::AccBits},
      {"dram_latency_cycles", &HwConfig::DramLatencyCycles},
      {"dram_burst_bytes", &HwConfig::DramBurstBytes},
      {"dram_mib", &HwConfig::DramMib},
      {"queue_depth", &HwConfig::QueueDepth},
      {"mac_pipeline_depth", &HwConfig::MacPipelineDepth},
      {"onchip_budget_kib", &HwConfig::OnchipBudgetKib},
  };
  for (auto [Key, M] : Counts)
    EXPECT_TRUE(rejects(with([M = M](HwConfig &C) { C.*M = 0; }), Key, "0")) << Key;
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.ActFracBits = 0; })));
}

TEST(HwValidate, AllRangeErrorsAreReportedTogether) {
  std::string Msg = check(with([](HwConfig &C) {
    C.LanesPerVmac = 0;
    C.AccBits = 99;
  }));
  EXPECT_NE(Msg.find("key 'lanes_per_vmac'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("key 'acc_bits'"), std::string::npos) << Msg;
}

TEST(HwValidate, ClockAndBandwidthMustBePositive) {
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.ClockMhz = 0; }), "clock_mhz", "0"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.ClockMhz = -250; }), "clock_mhz", "-250"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.ClockMhz = NAN; }), "clock_mhz", "nan"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.DramGbps = 0; }), "dram_gbps", "0"));
}

TEST(HwValidate, ClusterTimesCusAtMost16) {
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.Clusters = 4; })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.Clusters = 5; }), "cus_per_cluster", "5 × 4 = 20"));
  EXPECT_TRUE(accepts(with([](HwConfig &C) {
    C.Clusters = 1;
    C.CusPerCluster = 16;
  })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.CusPerCluster = 17; }), "cus_per_cluster", "17"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.Clusters = 17; }), "clusters", "17"));
}

TEST(HwValidate, VmacsPerCuAtMost16) {
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.VmacsPerCu = 16; })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.VmacsPerCu = 17; }), "vmacs_per_cu", "17"));
}

TEST(HwValidate, LanesPowerOfTwoUpTo64) {
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.LanesPerVmac = 1; })));
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.LanesPerVmac = 64; })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.LanesPerVmac = 128; }), "lanes_per_vmac", "128"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.LanesPerVmac = 12; }), "lanes_per_vmac", "12"));
  EXPECT_EQ(check(with([](HwConfig &C) { C.LanesPerVmac = 12; })),
            "where: key 'lanes_per_vmac': must be a power of two in 1..64, got '12'");
}

TEST(HwValidate, MapsBanksPowerOfTwoDividingTheBuffer) {
  // A 1 KiB maps buffer holds 512 int16 elements.
  auto Maps = [](unsigned Banks) {
    return with([Banks](HwConfig &C) {
      C.MapsBufferKib = 1;
      C.MapsBanks = Banks;
    });
  };
  EXPECT_TRUE(accepts(Maps(512)));
  EXPECT_TRUE(rejects(Maps(1024), "maps_banks", "1024"));
  EXPECT_TRUE(rejects(Maps(3), "maps_banks", "3"));
  EXPECT_TRUE(accepts(Maps(1)));
}

TEST(HwValidate, WeightsBanksHoldAtLeastOneWord) {
  // 1 KiB of 64-lane words (128 bytes each) is 8 words.
  auto Weights = [](unsigned Banks) {
    return with([Banks](HwConfig &C) {
      C.WeightsBufferKib = 1;
      C.LanesPerVmac = 64;
      C.WeightsBanks = Banks;
    });
  };
  EXPECT_TRUE(accepts(Weights(8)));
  EXPECT_TRUE(rejects(Weights(16), "weights_banks", "16"));
  EXPECT_TRUE(rejects(Weights(6), "weights_banks", "6"));
}

TEST(HwValidate, AccEntriesFitTheRowsField) {
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.AccEntries = 4095; })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.AccEntries = 4096; }), "acc_entries", "4096"));
}

TEST(HwValidate, AccBitsFrom32To64) {
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.AccBits = 32; })));
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.AccBits = 64; })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.AccBits = 31; }), "acc_bits", "31"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.AccBits = 65; }), "acc_bits", "65"));
}

TEST(HwValidate, ActFracBitsAtMost15) {
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.ActFracBits = 15; })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.ActFracBits = 16; }), "act_frac_bits", "16"));
}

TEST(HwValidate, DramBurstPowerOfTwoAtLeast8) {
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.DramBurstBytes = 8; })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.DramBurstBytes = 4; }), "dram_burst_bytes", "4"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.DramBurstBytes = 48; }), "dram_burst_bytes", "48"));
}

TEST(HwValidate, DramMibFitsThirtyTwoBitAddresses) {
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.DramMib = 4096; })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.DramMib = 4097; }), "dram_mib", "4097"));
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.DramMib = 1; })));
}

TEST(HwValidate, QueueDepthFrom2To1024) {
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.QueueDepth = 2; })));
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.QueueDepth = 1024; })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.QueueDepth = 1; }), "queue_depth", "1"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.QueueDepth = 1025; }), "queue_depth", "1025"));
}

TEST(HwValidate, TraceKeys) {
  // The start-up may be 0 (a trace's first MAC in its start cycle).
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.TraceStartupCycles = 0; })));
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.TraceStartupCycles = 1024; })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.TraceStartupCycles = 1025; }),
                      "trace_startup_cycles", "1025"));
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.TraceRowGranule = 1; })));
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.TraceRowGranule = 64; })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.TraceRowGranule = 0; }), "trace_row_granule", "0"));
  EXPECT_TRUE(
      rejects(with([](HwConfig &C) { C.TraceRowGranule = 12; }), "trace_row_granule", "12"));
  EXPECT_TRUE(
      rejects(with([](HwConfig &C) { C.TraceRowGranule = 128; }), "trace_row_granule", "128"));
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.MapsReadPorts = 1; })));
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.MapsReadPorts = 16; })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.MapsReadPorts = 0; }), "maps_read_ports", "0"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.MapsReadPorts = 17; }), "maps_read_ports", "17"));
}

TEST(HwValidate, DramEfficiencyIsAFractionUpToOne) {
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.DramEfficiency = 1; })));
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.DramEfficiency = 0.01; })));
  EXPECT_TRUE(
      rejects(with([](HwConfig &C) { C.DramEfficiency = 1.01; }), "dram_efficiency", "1.01"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.DramEfficiency = 0; }), "dram_efficiency", "0"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.DramEfficiency = NAN; }), "dram_efficiency", "nan"));
  // The channel moves the sustained share: 4.2 GB/s x 0.8 at 250 MHz is
  // 13.44 B/cycle, round(3440.64) in 1/256 units; x 1 it is round(4300.8).
  HwConfig Sustained = with([](HwConfig &C) {
    C.DramGbps = 4.2;
    C.DramEfficiency = 0.8;
  });
  EXPECT_EQ(Sustained.dramBwQ8(), 3441u);
  EXPECT_EQ(Sustained.dramCycles(64), 5u); // ceil(16384 / 3441) = ceil(4.76)
  Sustained.DramEfficiency = 1;
  EXPECT_EQ(Sustained.dramBwQ8(), 4301u);
  EXPECT_EQ(Sustained.dramCycles(64), 4u);
}

TEST(HwValidate, DramBandwidthAtLeastOneQ8StepPerCycle) {
  // At 250 MHz, Q8 = gbps * 1024; it rounds to 1 from exactly 0.5 / 1024.
  HwConfig AtLimit = with([](HwConfig &C) {
    C.DramGbps = 0.5 / 1024;
    C.DramEfficiency = 1;
  });
  EXPECT_TRUE(accepts(AtLimit));
  EXPECT_EQ(AtLimit.dramBwQ8(), 1u);
  EXPECT_EQ(AtLimit.dramCycles(1), 256u);
  EXPECT_TRUE(rejects(with([](HwConfig &C) {
                        C.DramGbps = 0.00048;
                        C.DramEfficiency = 1;
                      }),
                      "dram_gbps", "0.00048"));
  // The sustained share counts: 0.5 / 1024 GB/s at half efficiency is too slow.
  EXPECT_TRUE(rejects(with([](HwConfig &C) {
                        C.DramGbps = 0.5 / 1024;
                        C.DramEfficiency = 0.5;
                      }),
                      "dram_gbps", "0.5"));
  // And it must fit the 32-bit RTL register.
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.ClockMhz = 0.0001; }), "dram_gbps", "4.2"));
}

TEST(HwValidate, OnchipBytesWithinBudget) {
  // zc706 needs exactly 1763 KiB (1728 of buffers and accumulators, 3 of
  // queues, 32 of instruction memory).
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.OnchipBudgetKib = 1763; }, HwConfig())));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.OnchipBudgetKib = 1762; }, HwConfig()),
                      "onchip_budget_kib", "1762"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.OnchipBudgetKib = 4194304; }), "onchip_budget_kib",
                      "4194304"));
}

TEST(HwValidate, NameIsAPlainWord) {
  EXPECT_TRUE(accepts(with([](HwConfig &C) { C.Name = "my_board-2.1"; })));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.Name = ""; }), "name", ""));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.Name = "my board"; }), "name", "my board"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.Name = "-x"; }), "name", "-x"));
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.Name = "a:b"; }), "name", "a:b"));
  // YAML would read these back as null, breaking the toYaml round trip.
  EXPECT_TRUE(rejects(with([](HwConfig &C) { C.Name = "null"; }), "name", "null"));
}

} // namespace
