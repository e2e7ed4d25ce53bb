//===- FileIO.cpp - Writing output files without leaving debris -----------===//

#include "snow/support/FileIO.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace snow;

llvm::Error snow::writeFileAtomic(const std::string &Path, llvm::StringRef Bytes) {
  if (Path == "-") {
    llvm::outs() << Bytes;
    llvm::outs().flush();
    return llvm::Error::success();
  }
  llvm::SmallString<256> Tmp;
  int Fd = -1;
  llvm::StringRef Dir = llvm::sys::path::parent_path(Path);
  llvm::SmallString<256> Model(Dir.empty() ? "." : Dir);
  llvm::sys::path::append(Model, llvm::sys::path::filename(Path) + ".tmp-%%%%%%");
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, Fd, Tmp))
    return llvm::createStringError(EC, "cannot write '%s': %s", Path.c_str(),
                                   EC.message().c_str());
  {
    llvm::raw_fd_ostream OS(Fd, /*shouldClose=*/true);
    OS << Bytes;
    OS.close();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      llvm::sys::fs::remove(Tmp);
      return llvm::createStringError(EC, "cannot write '%s': %s", Path.c_str(),
                                     EC.message().c_str());
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(Tmp, Path)) {
    llvm::sys::fs::remove(Tmp);
    return llvm::createStringError(EC, "cannot write '%s': %s", Path.c_str(),
                                   EC.message().c_str());
  }
  return llvm::Error::success();
}
