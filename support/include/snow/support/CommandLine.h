//===- CommandLine.h - Helpers for the tools' LLVM command lines ----*- C++ -*-===//
//
// Every tool parses its options through parseToolCommandLine so that a usage
// error is one line ("snowc: error: ..."), like every other error, instead of
// LLVM's multi-line messages. LLVM Support also registers a few options of its
// own (statistics among them: -stats, -stats-json); our tools promise
// "--stats-json FILE", so reclaimLlvmOption renames LLVM's out of the way.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_COMMANDLINE_H
#define SNOW_SUPPORT_COMMANDLINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/CommandLine.h"
#include <string>

namespace snow {

/// Renames LLVM's built-in option Name to "llvm-Name" and hides it. Call
/// before constructing a tool option of the same name.
void reclaimLlvmOption(llvm::StringRef Name);

/// Hides options outside Cat and parses. On a usage error prints one line
/// "Tool: error: ..." to stderr and returns false (the tool exits non-zero).
bool parseToolCommandLine(int Argc, const char *const *Argv, llvm::StringRef Tool,
                          llvm::StringRef Overview, llvm::cl::OptionCategory &Cat);

/// Prints "Tool: error: Msg" on one line (newlines folded) and returns 1.
int toolError(llvm::StringRef Tool, const llvm::Twine &Msg);

/// The saturation warning snowsim, snowrtl and snowref print, one stderr line
/// naming the layer with the largest share of outputs at the int16 rails:
/// Fractions[I] is layer I's share, Name(I) its name. Nothing when every share
/// is 0. Calibrated: the formats came from the user's frames, so the hint to
/// calibrate on them is left out.
void warnSaturation(llvm::StringRef Tool, llvm::ArrayRef<double> Fractions,
                    llvm::function_ref<std::string(size_t)> Name, bool Calibrated);

} // namespace snow

#endif
