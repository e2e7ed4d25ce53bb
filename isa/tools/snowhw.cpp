//===- snowhw.cpp - Print hardware configs and ISA constants as JSON ------===//
//
// snowhw [PRESET|FILE ...]
//
// Prints one JSON object: "isa" holds the machine constants of Snow.td,
// "hw" one entry per named preset or YAML file (every preset when none is
// named) with its keys and derived sizes. Scripts read hardware and ISA
// numbers from here instead of retyping them (tests/isa/ConstantsOnceTest.cpp
// checks that nobody does).
//
//===----------------------------------------------------------------------===//

#include "snow/isa/HwExport.h"
#include "snow/support/CommandLine.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

cl::OptionCategory Cat("snowhw options");
cl::list<std::string> Configs(cl::Positional, cl::desc("[PRESET|FILE ...]"), cl::cat(Cat));

} // namespace

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  if (!snow::parseToolCommandLine(
          Argc, Argv, "snowhw",
          "Prints hardware configs (default: every preset) and the ISA's constants as JSON\n", Cat))
    return 1;
  std::vector<std::string> Names(Configs.begin(), Configs.end());
  if (Names.empty())
    Names = snow::isa::hwPresetNames();
  json::Array Hw;
  for (const std::string &N : Names) {
    auto C = snow::isa::loadHwConfig(N);
    if (!C)
      return snow::toolError("snowhw", toString(C.takeError()));
    Hw.push_back(snow::isa::hwConfigJson(*C));
  }
  json::Object Out{{"isa", snow::isa::isaConstantsJson()}, {"hw", std::move(Hw)}};
  outs() << llvm::formatv("{0:2}", json::Value(std::move(Out))) << "\n";
  return 0;
}
