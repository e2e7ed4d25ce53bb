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
#include "snow/support/HugePages.h"
#include <algorithm>
#include <vector>

using namespace snow;
using namespace snow::sim;

namespace {
/// Each distinct instruction word's index in order of first appearance: an
/// open-addressing table of indices (ResNet-50 has 630 k instructions,
/// mostly repeats, and this runs before every simulation).
class WordIndex {
public:
  /// The index of W, and whether W is new (then it gets the next index).
  std::pair<uint32_t, bool> insert(const isa::Word128 &W) {
    if (2 * (Words.size() + 1) > Slots.size())
      grow();
    for (size_t H = hash(W) & Mask;; H = (H + 1) & Mask) {
      if (!Slots[H]) {
        Words.push_back(W);
        Slots[H] = uint32_t(Words.size());
        return {uint32_t(Words.size() - 1), true};
      }
      if (Words[Slots[H] - 1] == W)
        return {Slots[H] - 1, false};
    }
  }

private:
  static size_t hash(const isa::Word128 &W) {
    const uint64_t X = (W.Lo ^ (W.Hi * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    return size_t(X ^ (X >> 31));
  }
  void grow() {
    Slots.assign(std::max<size_t>(1024, 2 * Slots.size()), 0);
    Mask = Slots.size() - 1;
    for (size_t I = 0; I < Words.size(); ++I) {
      size_t H = hash(Words[I]) & Mask;
      while (Slots[H])
        H = (H + 1) & Mask;
      Slots[H] = uint32_t(I + 1);
    }
  }
  std::vector<isa::Word128> Words; ///< Distinct words, by index.
  std::vector<uint32_t> Slots;     ///< Index + 1 of the word there; 0: empty.
  size_t Mask = 0;
};
} // namespace

Simulator::Simulator(const isa::Program &P, SimOptions Opts) : Prog(P), Opts(Opts) {}
Simulator::~Simulator() = default;

llvm::Expected<std::unique_ptr<Simulator>> Simulator::create(const isa::Program &P,
                                                             SimOptions Opts) {
  DecodedCode Code;
  // Both in huge pages: a page fault per 4 KiB was a third of this loop.
  // Unique is reserved for the worst case, all distinct: virtual memory,
  // only what is used is touched.
  Code.Index.reserve(P.Code.size());
  adviseHugePages(Code.Index.data(), Code.Index.capacity() * sizeof(uint32_t));
  reserveHuge(Code.Unique, P.Code.size());
  WordIndex Seen;
  for (size_t Pc = 0; Pc < P.Code.size(); ++Pc) {
    auto [Index, New] = Seen.insert(P.Code[Pc]);
    if (New) {
      auto I = isa::decode(P.Code[Pc]);
      if (!I)
        return llvm::createStringError(llvm::inconvertibleErrorCode(), "instruction at pc %zu: %s",
                                       Pc, llvm::toString(I.takeError()).c_str());
      Code.Unique.push_back(*I);
    }
    Code.Index.push_back(Index);
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
