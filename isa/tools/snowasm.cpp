//===- snowasm.cpp - Assemble a vMAC program into prog.bin ----------------===//
//
// snowasm prog.s -o prog.bin [--hw PRESET|FILE]
//
// A thin driver over snow::isa::assembleProgram: it reads the text, loads the
// hardware configuration the program is meant for (embedded in prog.bin so
// the simulator and RTL run it on the right machine) and writes the
// container. The hardware comes from the text's .hw block (snowdis prints
// one), else from --hw, else zc706; giving both --hw and a different .hw
// block is an error rather than a silent choice. Any error is one "snowasm: error: ..." line and
// exit status 1; the output is written atomically, so a failed run leaves no file behind.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Asm.h"
#include "snow/isa/HwConfig.h"
#include "snow/isa/Program.h"
#include "snow/support/CommandLine.h"
#include "snow/support/FileIO.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

cl::OptionCategory Cat("snowasm options");
cl::opt<std::string> InputPath(cl::Positional, cl::desc("<prog.s>"), cl::Required, cl::cat(Cat));
cl::opt<std::string> OutputPath("o", cl::desc("Output program container"),
                                cl::value_desc("prog.bin"), cl::Required, cl::cat(Cat));
cl::opt<std::string>
    HwName("hw",
           cl::desc("Hardware preset name or YAML file, for text without a .hw block "
                    "(default zc706)"),
           cl::value_desc("PRESET|FILE"), cl::init("zc706"), cl::cat(Cat));

int fail(const Twine &Msg) { return snow::toolError("snowasm", Msg); }

int fail(Error E) { return fail(toString(std::move(E))); }

} // namespace

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  if (!snow::parseToolCommandLine(Argc, Argv, "snowasm",
                                  "snowasm: assemble a vMAC program into prog.bin\n", Cat))
    return 1;

  // A file through readInputFile (a regular file of bounded size); "-" is
  // standard input, which the user chose to feed.
  ErrorOr<std::unique_ptr<MemoryBuffer>> Text =
      InputPath == "-" ? MemoryBuffer::getSTDIN() : snow::readInputFile(InputPath, true);
  if (!Text)
    return fail("cannot read '" + InputPath + "': " + Text.getError().message());

  Expected<snow::isa::HwConfig> Hw = snow::isa::loadHwConfig(HwName);
  if (!Hw)
    return fail(Hw.takeError());

  StringRef Src = (*Text)->getBuffer();
  Expected<snow::isa::Program> Prog =
      snow::isa::assembleProgram({Src.data(), Src.size()}, InputPath, *Hw,
                                 /*HwFixed=*/HwName.getNumOccurrences() > 0);
  if (!Prog)
    return fail(Prog.takeError());
  if (Prog->Code.empty())
    return fail(InputPath + ": no instructions; a program needs at least one (halt)");

  // The writer checks the program once more (TENS fields, DRAM fit): name the
  // source the values came from, not only the output file.
  if (Error E = snow::isa::writeProgram(*Prog, OutputPath))
    return fail(InputPath + ": " + toString(std::move(E)));
  return 0;
}
