//===- CommandLine.cpp - Helpers for the tools' LLVM command lines --------===//

#include "snow/support/CommandLine.h"
#include "snow/support/Text.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <unistd.h>

using namespace snow;
namespace cl = llvm::cl;

void snow::reclaimLlvmOption(llvm::StringRef Name) {
  auto &Options = cl::getRegisteredOptions();
  auto It = Options.find(Name);
  if (It == Options.end())
    return;
  cl::Option *O = It->second;
  static std::string Renamed; // setArgStr keeps a reference to the string.
  Renamed = ("llvm-" + Name).str();
  O->setArgStr(Renamed);
  O->setHiddenFlag(cl::ReallyHidden);
}

/// Folds a multi-line message into one line, dropping "tool: " prefixes that
/// LLVM puts on each of its lines.
static std::string oneLine(llvm::StringRef Text, llvm::StringRef Tool) {
  llvm::SmallVector<llvm::StringRef, 4> Lines;
  Text.split(Lines, '\n', -1, false);
  std::string Out;
  for (llvm::StringRef L : Lines) {
    L = L.trim();
    if (L.consume_front(Tool))
      L = L.ltrim(':').trim();
    if (L.empty())
      continue;
    if (!Out.empty())
      Out += "; ";
    Out += L.str();
  }
  return Out;
}

int snow::toolError(llvm::StringRef Tool, const llvm::Twine &Msg) {
  // One line, whatever the input files put into the message: control bytes
  // and terminal escapes are shown escaped, and a huge message is cut.
  llvm::WithColor::error(llvm::errs(), Tool)
      << escapeUntrusted(oneLine(Msg.str(), Tool), 2000) << "\n";
  return 1;
}

void snow::warnSaturation(llvm::StringRef Tool, llvm::ArrayRef<double> Fractions,
                          llvm::function_ref<std::string(size_t)> Name, bool Calibrated) {
  size_t Worst = 0;
  for (size_t I = 1; I < Fractions.size(); ++I)
    if (Fractions[I] > Fractions[Worst])
      Worst = I;
  if (Fractions.empty() || !(Fractions[Worst] > 0))
    return;
  llvm::errs() << fmt::format("{}: warning: values saturated; worst layer '{}' with {:.3f}% of its "
                              "outputs at 32767 or -32768{}\n",
                              Tool, Name(Worst), 100 * Fractions[Worst],
                              Calibrated ? ""
                                         : " (formats chosen for other data? calibrate on "
                                           "yours: --calibrate frames.npy)");
}

bool snow::parseToolCommandLine(int Argc, const char *const *Argv, llvm::StringRef Tool,
                                llvm::StringRef Overview, cl::OptionCategory &Cat) {
  cl::HideUnrelatedOptions(Cat);
  std::string Errors;
  llvm::raw_string_ostream OS(Errors);
  // Some option errors are printed straight to stderr rather than to the
  // stream given to the parser: capture file descriptor 2 while parsing so
  // that they, too, end up in the single error line.
  llvm::errs().flush();
  std::fflush(stderr);
  int Saved = ::dup(2);
  std::FILE *Capture = std::tmpfile();
  if (Saved >= 0 && Capture)
    ::dup2(::fileno(Capture), 2);
  bool Ok = cl::ParseCommandLineOptions(Argc, Argv, Overview, &OS);
  llvm::errs().flush();
  std::string Captured;
  if (Saved >= 0 && Capture) {
    ::dup2(Saved, 2);
    ::close(Saved);
    std::rewind(Capture);
    char Buf[512];
    size_t N;
    while ((N = std::fread(Buf, 1, sizeof(Buf), Capture)) > 0)
      Captured.append(Buf, N);
  }
  if (Capture)
    std::fclose(Capture);
  if (Ok && Captured.empty())
    return true;
  if (Ok) { // Warnings only: pass them on unchanged.
    llvm::errs() << Captured;
    return true;
  }
  toolError(Tool, Captured + "\n" + OS.str() + "\n(see --help)");
  return false;
}
