//===- snowdis.cpp - Print a prog.bin as assembly -------------------------===//
//
// snowdis prog.bin [--no-pc] [--no-data]
//
// Prints everything a program container holds as assembly: the hardware it
// was compiled for, its model name, tensors, layer table and DRAM image as
// directives (docs/assembly.md), then the code with a pc column. The listing
// assembles back to a byte-identical prog.bin, so patching a compiled program
// is a text edit. --no-data leaves the (possibly huge) DRAM image out for
// reading; the listing then says it does not round-trip.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Asm.h"
#include "snow/isa/Program.h"
#include "snow/support/CommandLine.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

cl::OptionCategory Cat("snowdis options");
cl::opt<std::string> InputPath(cl::Positional, cl::desc("<prog.bin>"), cl::Required, cl::cat(Cat));
cl::opt<bool> NoPc("no-pc",
                   cl::desc("Omit the pc column (snowasm checks it; omit it to edit code)"),
                   cl::cat(Cat));
cl::opt<bool> NoData("no-data",
                     cl::desc("Leave the DRAM image out (the listing then does not round-trip)"),
                     cl::cat(Cat));
// The image used to be opt-in; --data is kept so existing scripts still run.
cl::opt<bool> ShowData("data", cl::desc("Print the DRAM image (the default)"), cl::Hidden,
                       cl::cat(Cat));

int fail(const Twine &Msg) { return snow::toolError("snowdis", Msg); }

} // namespace

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  if (!snow::parseToolCommandLine(Argc, Argv, "snowdis", "snowdis: print a prog.bin as assembly\n",
                                  Cat))
    return 1;
  if (NoData && ShowData)
    return fail("--data and --no-data contradict each other");

  Expected<snow::isa::Program> Prog = snow::isa::readProgram(InputPath);
  if (!Prog)
    return fail(toString(Prog.takeError()));
  snow::isa::ListingOptions Opts;
  Opts.Source = InputPath;
  Opts.WithPc = !NoPc;
  Opts.WithData = !NoData;
  if (Error E = snow::isa::printListing(outs(), *Prog, Opts))
    return fail(InputPath + ": " + toString(std::move(E)));
  outs().flush();
  if (outs().has_error()) {
    outs().clear_error();
    return fail("cannot write the listing to standard output");
  }
  return 0;
}
