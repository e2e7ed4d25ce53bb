//===- CommandLine.h - Helpers for the tools' LLVM command lines ----*- C++ -*-===//
//
// LLVM Support registers a few options of its own in every tool (statistics
// among them: -stats, -stats-json). Our tools promise "--stats-json FILE", so
// the LLVM option is renamed out of the way before ours is constructed.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_COMMANDLINE_H
#define SNOW_SUPPORT_COMMANDLINE_H

#include "llvm/Support/CommandLine.h"

namespace snow {

/// Renames LLVM's built-in option Name to "llvm-Name" and hides it. Call
/// before constructing a tool option of the same name.
inline void reclaimLlvmOption(llvm::StringRef Name) {
  auto &Options = llvm::cl::getRegisteredOptions();
  auto It = Options.find(Name);
  if (It == Options.end())
    return;
  llvm::cl::Option *O = It->second;
  static std::string Renamed; // setArgStr keeps a reference to the string.
  Renamed = ("llvm-" + Name).str();
  O->setArgStr(Renamed);
  O->setHiddenFlag(llvm::cl::ReallyHidden);
}

} // namespace snow

#endif
