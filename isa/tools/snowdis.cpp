//===- snowdis.cpp - Print a prog.bin as assembly -------------------------===//
//
// snowdis prog.bin [--no-pc] [--data]
//
// Prints what a program container holds: the hardware it was compiled for,
// then its model name, tensors and layer table in the directive syntax of
// snowasm, then the code. With --no-pc the listing assembles back to the same
// code and metadata, and with --data also the constant DRAM image, which
// makes hand-patching a compiled program a text edit.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Asm.h"
#include "snow/isa/Program.h"
#include "snow/support/CommandLine.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace {

cl::OptionCategory Cat("snowdis options");
cl::opt<std::string> InputPath(cl::Positional, cl::desc("<prog.bin>"), cl::Required, cl::cat(Cat));
cl::opt<bool> NoPc("no-pc", cl::desc("Omit the pc column, so the output reassembles"),
                   cl::cat(Cat));
cl::opt<bool> ShowData("data", cl::desc("Print the constant DRAM image as .data16 directives"),
                       cl::cat(Cat));

int fail(const Twine &Msg) { return snow::toolError("snowdis", Msg); }

void printTensor(raw_ostream &OS, StringRef Dir, const snow::isa::TensorInfo &T) {
  if (T.Name.empty())
    return;
  OS << Dir << " " << format_hex(T.Addr, 2) << " " << T.C << " " << T.H << " " << T.W << " "
     << T.FracBits << "  # " << T.bytes() << " bytes, HWC int16\n";
}

/// The data image as .data16 lines of 16 values, so that --no-pc --data
/// output reassembles to the same prog.bin.
void printData(raw_ostream &OS, const snow::isa::Program &P) {
  constexpr size_t PerLine = 16;
  size_t N = P.Data.size();
  for (size_t I = 0; I < N; I += 2 * PerLine) {
    OS << ".data16 " << format_hex(P.DataAddr + I, 2);
    for (size_t J = I; J < std::min(N, I + 2 * PerLine); J += 2) {
      // An odd-sized image ends in a half element; its high byte reads as 0.
      uint16_t V = P.Data[J] | (J + 1 < N ? uint16_t(P.Data[J + 1]) << 8 : 0);
      OS << " " << int16_t(V);
    }
    OS << "\n";
  }
}

void printHeader(raw_ostream &OS, const snow::isa::Program &P) {
  const snow::isa::HwConfig &Hw = P.Hw;
  OS << "# " << InputPath << "\n"
     << "# hardware: " << Hw.Name << ", " << Hw.macs() << " MACs (" << Hw.Clusters << " clusters x "
     << Hw.CusPerCluster << " CUs x " << Hw.VmacsPerCu << " vMACs x " << Hw.LanesPerVmac
     << " lanes, " << format("%g", Hw.ClockMhz) << " MHz)\n";
  if (!P.ModelName.empty())
    OS << ".model " << P.ModelName << "\n";
  printTensor(OS, ".input", P.Input);
  printTensor(OS, ".output", P.Output);
  for (size_t I = 0; I < P.Layers.size(); ++I) {
    const snow::isa::LayerInfo &L = P.Layers[I];
    OS << ".layer " << L.Name << " " << L.Type << " " << L.Macs << " " << L.OutC << " " << L.OutH
       << " " << L.OutW << "  # mark imm=" << I << "\n";
  }
  if (!P.Data.empty())
    OS << "# data: " << P.Data.size() << " bytes at " << format_hex(P.DataAddr, 2)
       << (ShowData ? "" : " (not shown; see --data)") << "\n";
  if (ShowData)
    printData(OS, P);
  OS << "# code: " << P.Code.size() << " instructions\n";
}

} // namespace

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  if (!snow::parseToolCommandLine(Argc, Argv, "snowdis", "snowdis: print a prog.bin as assembly\n",
                                  Cat))
    return 1;

  Expected<snow::isa::Program> Prog = snow::isa::readProgram(InputPath);
  if (!Prog)
    return fail(toString(Prog.takeError()));
  Expected<std::vector<snow::isa::Inst>> Code = snow::isa::decodeProgram(Prog->Code);
  if (!Code)
    return fail(InputPath + ": " + toString(Code.takeError()));

  printHeader(outs(), *Prog);
  outs() << snow::isa::disassembleProgram(*Code, !NoPc);
  return 0;
}
