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

#include "llvm/Support/CommandLine.h"

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

} // namespace snow

#endif
