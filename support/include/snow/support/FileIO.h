//===- FileIO.h - Writing output files without leaving debris -------*- C++ -*-===//
//
// Every tool writes its outputs through writeFileAtomic: the bytes go to a
// temporary file in the destination directory, which is renamed over the
// destination only when complete, so a failure never leaves a partial file.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_FILEIO_H
#define SNOW_SUPPORT_FILEIO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <utility>
#include <vector>

namespace snow {

/// Writes Bytes to Path atomically; "-" writes to stdout.
llvm::Error writeFileAtomic(const std::string &Path, llvm::StringRef Bytes);

/// Writes the concatenation of Parts to Path atomically, without joining
/// them in memory first (a prog.bin's weight image is hundreds of MB).
llvm::Error writeFileAtomic(const std::string &Path, llvm::ArrayRef<llvm::StringRef> Parts);

/// Writes several outputs of one run all or nothing: each goes to a temporary
/// file first, and only when every one was written are they renamed into
/// place. A failure leaves every destination as it was.
llvm::Error writeFilesAtomic(const std::vector<std::pair<std::string, std::string>> &Files);

} // namespace snow

#endif
