//===- SuccessPathsTest.cpp - The tools chained as a user chains them -----===//
//
// snowc -> snowsim, with --stats-json and --output, against snowref on the
// demo model. The library tests already prove the simulator bit-exact; what
// only the binaries can show is that the files they write agree (the .npy
// bytes, header included, not just the values) and that the JSON report is
// well-formed and self-consistent: dashboards read these keys, and per-layer
// cycles that do not add up to the total make a per-layer breakdown a lie.
//
//===----------------------------------------------------------------------===//

#include "ToolHarness.h"

#include "llvm/Support/JSON.h"

using namespace snow::test;
namespace json = llvm::json;

namespace {

class Success : public ToolTest {
protected:
  /// Parses the file Name as JSON, failing the test if it does not parse.
  json::Value parseJson(const std::string &Name) const {
    llvm::Expected<json::Value> V = json::parse(read(Name));
    if (!V) {
      ADD_FAILURE() << Name << " is not valid JSON: " << llvm::toString(V.takeError()) << "\n"
                    << read(Name);
      return nullptr;
    }
    return std::move(*V);
  }
};

/// The MACs of tiny.yaml by hand (out_c * out_h * out_w * in_c * kh * kw):
/// c1 16*32*32*3*3*3, p1 none, c2 40*8*16*16*5*3.
constexpr int64_t TinyMacsC1 = 442368, TinyMacsC2 = 1228800;

} // namespace

TEST_F(Success, CompileAndSimulateTinyExitZero) {
  ASSERT_TRUE(succeeded(run("snowc", {tinyModel(), "-o", "t.bin"})));
  ToolResult R = run("snowsim", {"t.bin", "--hw", "zc706"});
  ASSERT_TRUE(succeeded(R));
  EXPECT_NE(R.Out.find("model tiny on zc706"), std::string::npos) << R;
  // The header's DRAM says the share the timing charges (zc706: 80 % of 4.2).
  EXPECT_NE(R.Out.find("DRAM 4.2 GB/s (80 % sustained)"), std::string::npos) << R;
  EXPECT_EQ(listing(), std::set<std::string>{"t.bin"})
      << "snowsim wrote files it was not asked for";
}

// --summary tables the model as written; where the compiler maps other MACs
// (ShuffleNet v2's shuffles and halves folded into its convs) a last line
// says how many.
TEST_F(Success, SummarySaysWhatTheCompilerMaps) {
  const std::string Models = std::string(SNOW_SOURCE_DIR) + "/models/";
  ToolResult R = run("snowc", {Models + "shufflenet_v2_x1_0.yaml", "--summary"});
  ASSERT_TRUE(succeeded(R));
  EXPECT_NE(R.Out.find("total: 0.451 G MACs (450.8 M)"), std::string::npos) << R;
  EXPECT_NE(R.Out.find("0.145 G MACs (144.9 M), 2.279 M params without its 305.9 M MACs of channel "
                       "copies"),
            std::string::npos)
      << "torchvision's count: the shuffles and slices are not the network's work\n"
      << R;
  EXPECT_NE(R.Out.find("canonical form: 0.145 G MACs (144.9 M, 0.0 M of them channel copies)"),
            std::string::npos)
      << R;
  R = run("snowc", {Models + "resnet50.yaml", "--summary"});
  ASSERT_TRUE(succeeded(R));
  EXPECT_EQ(R.Out.find("canonical form"), std::string::npos) << "the same MACs: no line\n" << R;
}

TEST_F(Success, StatsJsonHasTheDocumentedKeysAndAddsUp) {
  compileTiny("t.bin");
  ASSERT_TRUE(succeeded(run("snowsim", {"t.bin", "--stats-json", "s.json", "--quiet"})));
  json::Value Root = parseJson("s.json");
  const json::Object *O = Root.getAsObject();
  ASSERT_NE(O, nullptr) << "the top level is not an object";

  const json::Object *Hw = O->getObject("hw");
  ASSERT_NE(Hw, nullptr) << "no 'hw' object";
  EXPECT_EQ(Hw->getString("name"), llvm::Optional<llvm::StringRef>("zc706"));
  EXPECT_EQ(Hw->getInteger("macs"), llvm::Optional<int64_t>(256));
  EXPECT_EQ(Hw->getNumber("clock_mhz"), llvm::Optional<double>(250));
  EXPECT_EQ(Hw->getNumber("peak_gops"), llvm::Optional<double>(128));
  EXPECT_EQ(Hw->getNumber("dram_gbps"), llvm::Optional<double>(4.2));
  EXPECT_EQ(Hw->getNumber("dram_efficiency"), llvm::Optional<double>(0.8));
  EXPECT_EQ(O->getString("model"), llvm::Optional<llvm::StringRef>("tiny"));

  const json::Object *Total = O->getObject("total");
  ASSERT_NE(Total, nullptr) << "no 'total' object";
  for (const char *Key : {"cycles", "macs", "dram_read_bytes", "dram_write_bytes"})
    EXPECT_TRUE(Total->getInteger(Key).hasValue())
        << "total." << Key << " missing or not an integer";
  for (const char *Key : {"utilization", "gops", "fps"})
    EXPECT_TRUE(Total->getNumber(Key).hasValue()) << "total." << Key << " missing or not a number";
  int64_t Cycles = Total->getInteger("cycles").getValueOr(0);
  ASSERT_GT(Cycles, 0);
  EXPECT_EQ(Total->getInteger("macs"), llvm::Optional<int64_t>(TinyMacsC1 + TinyMacsC2));
  EXPECT_GT(Total->getInteger("dram_read_bytes").getValueOr(0), 0);
  EXPECT_GT(Total->getInteger("dram_write_bytes").getValueOr(0), 0);

  // The derived totals follow from cycles, MACs and the clock (1 MAC = 2 ops).
  double Util = Total->getNumber("utilization").getValueOr(-1);
  EXPECT_GT(Util, 0.0);
  EXPECT_LE(Util, 1.0);
  EXPECT_NEAR(Util, double(TinyMacsC1 + TinyMacsC2) / (double(Cycles) * 256), 1e-9);
  EXPECT_NEAR(Total->getNumber("fps").getValueOr(0), 250e6 / double(Cycles), 1e-6 * 250e6 / Cycles);
  EXPECT_NEAR(Total->getNumber("gops").getValueOr(0),
              2.0 * double(TinyMacsC1 + TinyMacsC2) * 250e6 / double(Cycles) / 1e9, 1e-6);

  const json::Array *Layers = O->getArray("layers");
  ASSERT_NE(Layers, nullptr) << "no 'layers' array";
  ASSERT_EQ(Layers->size(), 3u);
  const char *Names[] = {"c1", "p1", "c2"}, *Types[] = {"conv", "maxpool", "conv"};
  const int64_t Macs[] = {TinyMacsC1, 0, TinyMacsC2};
  int64_t CycleSum = 0, MacSum = 0;
  for (size_t I = 0; I < Layers->size(); ++I) {
    SCOPED_TRACE("layers[" + std::to_string(I) + "]");
    const json::Object *L = (*Layers)[I].getAsObject();
    ASSERT_NE(L, nullptr);
    EXPECT_EQ(L->getString("name"), llvm::Optional<llvm::StringRef>(Names[I]));
    EXPECT_EQ(L->getString("type"), llvm::Optional<llvm::StringRef>(Types[I]));
    EXPECT_EQ(L->getInteger("macs"), llvm::Optional<int64_t>(Macs[I]));
    ASSERT_TRUE(L->getInteger("cycles").hasValue());
    ASSERT_TRUE(L->getNumber("utilization").hasValue());
    int64_t LayerCycles = *L->getInteger("cycles");
    EXPECT_GT(LayerCycles, 0);
    EXPECT_GE(*L->getNumber("utilization"), 0.0);
    EXPECT_LE(*L->getNumber("utilization"), 1.0);
    CycleSum += LayerCycles;
    MacSum += L->getInteger("macs").getValueOr(0);
  }
  EXPECT_EQ(CycleSum, Cycles) << "per-layer cycles must add up exactly to total.cycles";
  EXPECT_EQ(MacSum, Total->getInteger("macs").getValueOr(-1));

  // docs/stats-json.md: each unit's five cycle classes also add up to the total.
  const json::Object *Units = O->getObject("units");
  ASSERT_NE(Units, nullptr) << "no 'units' object";
  for (const char *Unit : {"load", "compute", "store"}) {
    SCOPED_TRACE(std::string("units.") + Unit);
    const json::Object *U = Units->getObject(Unit);
    ASSERT_NE(U, nullptr);
    int64_t Sum = 0;
    for (const char *Class : {"busy", "wait_sem", "wait_dram", "wait_acc", "idle"}) {
      ASSERT_TRUE(U->getInteger(Class).hasValue()) << Class;
      Sum += *U->getInteger(Class);
    }
    EXPECT_EQ(Sum, Cycles);
  }

  // --timing-only is cycle-accurate: the same cycle count without values.
  ASSERT_TRUE(
      succeeded(run("snowsim", {"t.bin", "--timing-only", "--stats-json", "st.json", "--quiet"})));
  json::Value Timing = parseJson("st.json");
  ASSERT_NE(Timing.getAsObject(), nullptr);
  const json::Object *TimingTotal = Timing.getAsObject()->getObject("total");
  ASSERT_NE(TimingTotal, nullptr);
  EXPECT_EQ(TimingTotal->getInteger("cycles"), llvm::Optional<int64_t>(Cycles));
}

TEST_F(Success, SimulatorAndReferenceWriteByteIdenticalOutputs) {
  // zc706 and mini64: a different CU count changes the tiling, not the bytes.
  for (const char *Hw : {"zc706", "mini64"}) {
    SCOPED_TRACE(Hw);
    compileTiny("t.bin", Hw);
    ASSERT_TRUE(succeeded(run("snowsim", {"t.bin", "--output", "sim.npy", "--quiet"})));
    ASSERT_TRUE(
        succeeded(run("snowref", {tinyModel(), "--hw", Hw, "--output", "ref.npy", "--quiet"})));
    std::string Sim = read("sim.npy"), Ref = read("ref.npy");
    ASSERT_GT(Sim.size(), 2u * 40 * 8 * 16) << "tiny's output is 40x8x16 int16";
    EXPECT_EQ(Sim.substr(0, 6), "\x93NUMPY");
    EXPECT_NE(Sim.find("'<i2'"), std::string::npos) << "the fixed-point output is int16";
    EXPECT_NE(Sim.find("(40, 8, 16)"), std::string::npos) << "the output is CHW";
    EXPECT_TRUE(Sim == Ref) << "snowsim and snowref outputs differ";
  }
}

TEST_F(Success, SimulatorAndReferenceAgreeOnAGivenInput) {
  // A non-default input, fed as int16 (raw Q7.8) so no rounding is involved.
  std::string Data;
  for (unsigned I = 0; I < 3 * 32 * 32; ++I) {
    int16_t V = int16_t((I * 37 % 512) - 256);
    Data += char(V & 0xFF);
    Data += char((uint16_t(V) >> 8) & 0xFF);
  }
  write("x.npy", makeNpy("<i2", {3, 32, 32}, Data));
  compileTiny("t.bin");
  ASSERT_TRUE(
      succeeded(run("snowsim", {"t.bin", "--input", "x.npy", "--output", "sim.npy", "--quiet"})));
  ASSERT_TRUE(succeeded(
      run("snowref", {tinyModel(), "--input", "x.npy", "--output", "ref.npy", "--quiet"})));
  EXPECT_TRUE(read("sim.npy") == read("ref.npy")) << "snowsim and snowref outputs differ";
  // And the input mattered: the default input gives another output.
  ASSERT_TRUE(succeeded(run("snowsim", {"t.bin", "--output", "default.npy", "--quiet"})));
  EXPECT_FALSE(read("default.npy") == read("sim.npy"));
}

TEST_F(Success, UniformFormatFlagAgreesBetweenCompilerAndReference) {
  // Both tools calibrate per-layer formats by default and take
  // --uniform-format for the hardware's one format; a user comparing the two
  // must get matching snowsim / snowref outputs either way.
  ASSERT_TRUE(succeeded(run("snowc", {tinyModel(), "-o", "u.bin", "--uniform-format"})));
  ASSERT_TRUE(succeeded(run("snowsim", {"u.bin", "--output", "sim.npy", "--quiet"})));
  ToolResult R = run("snowref", {tinyModel(), "--uniform-format", "--output", "ref.npy"});
  ASSERT_TRUE(succeeded(R));
  EXPECT_NE(R.Out.find("formats: Q7.8 for every layer (--uniform-format)"), std::string::npos) << R;
  EXPECT_TRUE(read("sim.npy") == read("ref.npy")) << "snowsim and snowref outputs differ";
  // The default run prints the calibrated formats and gives another output
  // (tiny's last conv is calibrated to Q3.12, not Q7.8).
  R = run("snowref", {tinyModel(), "--output", "cal.npy", "--layers"});
  ASSERT_TRUE(succeeded(R));
  EXPECT_NE(R.Out.find("calibrated on the default input"), std::string::npos) << R;
  EXPECT_NE(R.Out.find("Q3.12"), std::string::npos) << R;
  EXPECT_FALSE(read("cal.npy") == read("ref.npy"));
}

TEST_F(Success, DisassemblerReadsWhatTheCompilerWrote) {
  compileTiny("t.bin", "mini64");
  ToolResult R = run("snowdis", {"t.bin"});
  ASSERT_TRUE(succeeded(R));
  EXPECT_NE(R.Out.find("# hardware: mini64, 64 MACs"), std::string::npos) << R;
  EXPECT_NE(R.Out.find(".layer c2 conv 1228800 40 8 16"), std::string::npos) << R;
  EXPECT_NE(R.Out.find("halt"), std::string::npos) << R;

  // And refuses a damaged copy the same way snowsim does.
  std::string Bad = read("t.bin");
  Bad[Bad.size() / 2] = char(Bad[Bad.size() / 2] ^ 1);
  write("bad.bin", Bad);
  EXPECT_TRUE(isCleanError(run("snowdis", {"bad.bin"}), {"bad.bin", "checksum"}));
}
