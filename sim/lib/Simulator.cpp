//===- Simulator.cpp - The public face of the simulator -------------------===//
//
// Decodes the program (each distinct word once), lays the constant data and the input tensor into
// DRAM (HWC, int16), runs the machine and reads the output tensor back (CHW). A timing-only run
// leaves DRAM as zeros (values cannot change its cycles).
//
//===----------------------------------------------------------------------===//

#include "snow/sim/Simulator.h"
#include "Machine.h"
#include "snow/sim/DramImage.h"
#include <unordered_map>

using namespace snow;
using namespace snow::sim;

namespace {
struct WordHash {
  size_t operator()(const isa::Word128 &W) const {
    return std::hash<uint64_t>()(W.Lo * 0x9E3779B97F4A7C15ull ^ W.Hi);
  }
};
} // namespace

Simulator::Simulator(const isa::Program &P, SimOptions Opts) : Prog(P), Opts(Opts) {}
Simulator::~Simulator() = default;

llvm::Expected<std::unique_ptr<Simulator>> Simulator::create(const isa::Program &P,
                                                             SimOptions Opts) {
  DecodedCode Code;
  Code.Index.reserve(P.Code.size());
  Code.Unique.reserve(P.Code.size()); // virtual memory; only what is used is touched
  std::unordered_map<isa::Word128, uint32_t, WordHash> Seen;
  Seen.reserve(P.Code.size() / 4);
  for (size_t Pc = 0; Pc < P.Code.size(); ++Pc) {
    auto [It, New] = Seen.try_emplace(P.Code[Pc], uint32_t(Code.Unique.size()));
    if (New) {
      auto I = isa::decode(P.Code[Pc]);
      if (!I)
        return llvm::createStringError(llvm::inconvertibleErrorCode(), "instruction at pc %zu: %s",
                                       Pc, llvm::toString(I.takeError()).c_str());
      Code.Unique.push_back(*I);
    }
    Code.Index.push_back(It->second);
  }
  if (auto Err = checkConstantData(P))
    return Err;
  std::unique_ptr<Simulator> S(new Simulator(P, Opts));
  S->M = std::make_unique<Machine>(P, std::move(Code), Opts);
  // A timing-only run never reads a value from DRAM: copying the weights
  // image in would cost more than the run itself.
  if (!Opts.TimingOnly)
    loadConstantData(P, S->M->dram());
  return S;
}

llvm::Error Simulator::setInput(const std::vector<int16_t> &Chw) {
  return writeInput(Prog, Chw, M->dram());
}

std::vector<int16_t> Simulator::output() const { return readOutput(Prog, M->dram()); }

llvm::Expected<SimStats> Simulator::run() {
  SimStats S;
  if (auto Err = M->run(S))
    return Err;
  S.RailsCounted = !Opts.TimingOnly;
  S.RailFrames = S.RailsCounted;
  return S;
}
