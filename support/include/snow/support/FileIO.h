//===- FileIO.h - Writing output files without leaving debris -------*- C++ -*-===//
//
// Every tool writes its outputs through writeFileAtomic: the bytes go to a
// temporary file in the destination directory, which is renamed over the
// destination only when complete, so a failure never leaves a partial file.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_FILEIO_H
#define SNOW_SUPPORT_FILEIO_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace snow {

/// Writes Bytes to Path atomically; "-" writes to stdout.
llvm::Error writeFileAtomic(const std::string &Path, llvm::StringRef Bytes);

} // namespace snow

#endif
