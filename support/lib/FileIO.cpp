//===- FileIO.cpp - Writing output files without leaving debris -----------===//

#include "snow/support/FileIO.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace snow;

static llvm::Error cannotWrite(const std::string &Path, std::error_code EC) {
  return llvm::createStringError(EC, "cannot write '%s': %s", Path.c_str(), EC.message().c_str());
}

/// Writes the concatenation of Parts to a new temporary file beside Path;
/// returns its name.
static llvm::Expected<std::string> writeTemporary(const std::string &Path,
                                                  llvm::ArrayRef<llvm::StringRef> Parts) {
  llvm::SmallString<256> Tmp;
  int Fd = -1;
  llvm::StringRef Dir = llvm::sys::path::parent_path(Path);
  llvm::SmallString<256> Model(Dir.empty() ? "." : Dir);
  llvm::sys::path::append(Model, llvm::sys::path::filename(Path) + ".tmp-%%%%%%");
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, Fd, Tmp))
    return cannotWrite(Path, EC);
  llvm::raw_fd_ostream OS(Fd, /*shouldClose=*/true);
  for (llvm::StringRef Part : Parts)
    OS << Part;
  OS.close();
  if (OS.has_error()) {
    std::error_code EC = OS.error();
    OS.clear_error();
    llvm::sys::fs::remove(Tmp);
    return cannotWrite(Path, EC);
  }
  return std::string(Tmp);
}

llvm::Error snow::writeFilesAtomic(const std::vector<std::pair<std::string, std::string>> &Files) {
  std::vector<std::string> Temps;
  auto Discard = [&] {
    for (const std::string &T : Temps)
      llvm::sys::fs::remove(T);
  };
  for (const auto &[Path, Bytes] : Files) {
    if (Path == "-")
      continue;
    auto Tmp = writeTemporary(Path, llvm::StringRef(Bytes));
    if (!Tmp) {
      Discard();
      return Tmp.takeError();
    }
    Temps.push_back(*Tmp);
  }
  size_t T = 0;
  for (const auto &[Path, Bytes] : Files) {
    if (Path == "-") {
      llvm::outs() << Bytes;
      llvm::outs().flush();
      continue;
    }
    if (std::error_code EC = llvm::sys::fs::rename(Temps[T], Path)) {
      Discard();
      return cannotWrite(Path, EC);
    }
    ++T;
  }
  return llvm::Error::success();
}

llvm::Error snow::writeFileAtomic(const std::string &Path, llvm::StringRef Bytes) {
  return writeFileAtomic(Path, llvm::ArrayRef<llvm::StringRef>(Bytes));
}

llvm::Error snow::writeFileAtomic(const std::string &Path, llvm::ArrayRef<llvm::StringRef> Parts) {
  if (Path == "-") {
    for (llvm::StringRef Part : Parts)
      llvm::outs() << Part;
    llvm::outs().flush();
    return llvm::Error::success();
  }
  auto Tmp = writeTemporary(Path, Parts);
  if (!Tmp)
    return Tmp.takeError();
  if (std::error_code EC = llvm::sys::fs::rename(*Tmp, Path)) {
    llvm::sys::fs::remove(*Tmp);
    return cannotWrite(Path, EC);
  }
  return llvm::Error::success();
}
