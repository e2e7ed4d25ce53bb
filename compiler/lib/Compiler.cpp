//===- Compiler.cpp - The snowc driver: plan, pack, lower, package --------===//
//
// Checks the graph against what the hardware and this compiler support, plans
// every layer, lays out DRAM (constant weights first, then the input and one
// tensor per layer output), packs the weights in exactly the order the load
// unit fetches them, emits the code and wraps everything into a Program.
//
//===----------------------------------------------------------------------===//

#include "snow/compiler/Compiler.h"
#include "Emitter.h"
#include "Lower.h"
#include "Plan.h"
#include <fmt/format.h>

using namespace snow;
using namespace snow::compiler;

namespace {

constexpr uint64_t DataBase = 0x10000; ///< Leave the first 64 KiB unused: a stray 0 faults.
constexpr uint64_t TensorAlign = 4096;

uint64_t alignTo(uint64_t V, uint64_t A) { return (V + A - 1) / A * A; }

llvm::Error compileError(const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// Packs the weights of a conv layer: block (og, chunk, vmac) holds, for every
/// kernel tap (ky, kx, input channel of the chunk), one word of `lanes` int16
/// weights of consecutive output channels, followed in chunk 0 by the bias word.
void packWeights(LayerPlan &P, const isa::HwConfig &Hw, uint64_t DataAddr,
                 std::vector<uint8_t> &Data) {
  const ir::Layer &L = *P.L;
  const unsigned Lanes = Hw.LanesPerVmac, V = Hw.VmacsPerCu, G = V * Lanes;
  const unsigned Cin = L.In.C, Cout = L.Out.C;
  P.WAddr.assign(size_t(P.NOg) * P.NChunks * V, 0);
  P.WWords.assign(P.WAddr.size(), 0);
  auto Put = [&](int16_t X) {
    Data.push_back(uint8_t(uint16_t(X)));
    Data.push_back(uint8_t(uint16_t(X) >> 8));
  };
  for (unsigned Og = 0; Og < P.NOg; ++Og)
    for (unsigned C = 0; C < P.NChunks; ++C)
      for (unsigned Vm = 0; Vm < V; ++Vm) {
        Data.resize(alignTo(Data.size(), Hw.DramBurstBytes));
        unsigned K = P.wIndex(Og, C, Vm, V);
        P.WAddr[K] = DataAddr + Data.size();
        unsigned C0 = P.chunkBegin(C), Cn = P.chunkSize(C, Cin);
        for (unsigned Ky = 0; Ky < L.KH; ++Ky)
          for (unsigned Kx = 0; Kx < L.KW; ++Kx)
            for (unsigned Ci = C0; Ci < C0 + Cn; ++Ci)
              for (unsigned Lane = 0; Lane < Lanes; ++Lane) {
                unsigned O = Og * G + Vm * Lanes + Lane;
                Put(O < Cout ? L.QWeights[((size_t(O) * Cin + Ci) * L.KH + Ky) * L.KW + Kx] : 0);
              }
        P.WWords[K] = L.KH * L.KW * Cn;
        if (C == 0) {
          for (unsigned Lane = 0; Lane < Lanes; ++Lane) {
            unsigned O = Og * G + Vm * Lanes + Lane;
            Put(O < Cout ? L.QBias[O] : 0);
          }
          ++P.WWords[K];
        }
      }
}

llvm::Error checkLayer(const ir::Layer &L, const isa::HwConfig &Hw) {
  auto Err = [&](const std::string &Msg) {
    return compileError(fmt::format("{}: layer '{}': {}", L.Loc.str(), L.Name, Msg));
  };
  if (L.Kind != ir::LayerKind::Conv && L.Kind != ir::LayerKind::MaxPool)
    return Err(fmt::format("layer type '{}' is not supported by the compiler yet",
                           ir::kindName(L.Kind)));
  if (L.Kind == ir::LayerKind::Conv) {
    int Shift = L.InFrac + L.WFrac - L.OutFrac, BShift = L.InFrac + L.WFrac - L.BFrac;
    if (Shift < 0 || Shift > 63 || BShift < 0 || BShift > 63)
      return Err(fmt::format("fixed-point formats (in {}, weights {}, bias {}, out {}) need "
                             "shifts outside 0..63",
                             L.InFrac, L.WFrac, L.BFrac, L.OutFrac));
    if (L.QWeights.size() != size_t(L.Out.C) * L.In.C * L.KH * L.KW)
      return Err("weights are not quantized (run ir::quantize first)");
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<LayerPlan>> planAll(const ir::Graph &G, const isa::HwConfig &Hw,
                                               const BufferMap &B, const CompileOptions &Opts) {
  std::vector<LayerPlan> Plans;
  for (unsigned I = 0; I < G.Layers.size(); ++I) {
    if (auto Err = checkLayer(G.Layers[I], Hw))
      return std::move(Err);
    auto P = planLayer(G.Layers[I], I, Hw, B, Opts);
    if (!P)
      return P.takeError();
    Plans.push_back(std::move(*P));
  }
  return Plans;
}

} // namespace

llvm::Expected<isa::Program> snow::compiler::compile(const ir::Graph &G, const isa::HwConfig &Hw,
                                                    const CompileOptions &Opts) {
  if (G.Layers.empty())
    return compileError(G.Loc.str() + ": model has no layers");
  auto B = makeBufferMap(Hw);
  if (!B)
    return B.takeError();
  auto Plans = planAll(G, Hw, *B, Opts);
  if (!Plans)
    return Plans.takeError();

  isa::Program Prog;
  Prog.Hw = Hw;
  Prog.ModelName = G.Name;
  Prog.DataAddr = DataBase;
  for (LayerPlan &P : *Plans)
    if (P.IsConv)
      packWeights(P, Hw, DataBase, Prog.Data);

  // Activations: the input, then one tensor per layer output.
  uint64_t Next = alignTo(DataBase + Prog.Data.size(), TensorAlign);
  const uint64_t WeightBytes = Next - DataBase;
  auto Place = [&](uint32_t C, uint32_t H, uint32_t W) {
    uint64_t A = Next;
    Next = alignTo(Next + uint64_t(C) * H * W * 2, TensorAlign);
    return A;
  };
  Prog.Input = {G.InputName, Place(G.Input.C, G.Input.H, G.Input.W), G.Input.C, G.Input.H,
                G.Input.W, uint32_t(G.InputFrac)};
  std::vector<uint64_t> OutAddr;
  for (LayerPlan &P : *Plans) {
    const ir::Layer &L = *P.L;
    P.InAddr = L.Input < 0 ? Prog.Input.Addr : OutAddr[L.Input];
    P.OutAddr = Place(L.Out.C, L.Out.H, L.Out.W);
    OutAddr.push_back(P.OutAddr);
    Prog.Layers.push_back(
        {L.Name, ir::kindName(L.Kind), L.macs(), L.Out.C, L.Out.H, L.Out.W});
  }
  if (Next > Hw.dramBytes())
    return compileError(fmt::format(
        "{}: model '{}' needs {:.1f} MiB of DRAM (weights {:.1f} MiB, activations {:.1f} MiB) "
        "but hardware '{}' has {} MiB",
        G.Loc.str(), G.Name, Next / 1048576.0, WeightBytes / 1048576.0,
        (Next - DataBase - WeightBytes) / 1048576.0, Hw.Name, Hw.DramMib));
  const ir::Layer &Last = G.output();
  Prog.Output = {Last.Name, OutAddr.back(), Last.Out.C, Last.Out.H, Last.Out.W,
                 uint32_t(Last.OutFrac)};

  Emitter E;
  emitProgram(E, makeSteps(*Plans, Opts), Hw, *B, Opts);
  auto Words = E.finish();
  if (!Words)
    return Words.takeError();
  Prog.Code = std::move(*Words);
  return Prog;
}

std::string snow::compiler::describePlan(const ir::Graph &G, const isa::HwConfig &Hw,
                                         const CompileOptions &Opts) {
  auto B = makeBufferMap(Hw);
  if (!B)
    return llvm::toString(B.takeError()) + "\n";
  std::string Out = fmt::format("{:<16} {:<8} {:>14} {:>9} {:>7} {:>4} {:<6} {:>12} {:>9}\n",
                                "layer", "type", "chunks", "tile", "groups", "og", "order",
                                "est cycles", "est MB");
  for (unsigned I = 0; I < G.Layers.size(); ++I) {
    const ir::Layer &L = G.Layers[I];
    auto P = planLayer(L, I, Hw, *B, Opts);
    if (!P) {
      Out += fmt::format("{:<16} {}\n", L.Name, llvm::toString(P.takeError()));
      continue;
    }
    Out += fmt::format("{:<16} {:<8} {:>14} {:>9} {:>7} {:>4} {:<6} {:>12} {:>9.2f}\n", L.Name,
                       ir::kindName(L.Kind), fmt::format("{}x{}", P->NChunks, P->Chunk),
                       fmt::format("{}x{}", P->R, P->Wt), P->NGroups, P->NOg,
                       P->MapStationary ? "maps" : "kernel", P->EstCycles, P->EstDramBytes / 1e6);
  }
  return Out;
}
