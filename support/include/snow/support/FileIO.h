//===- FileIO.h - Reading inputs safely, writing outputs without debris -*- C++ -*-===//
//
// Every tool writes its outputs through writeFileAtomic: the bytes go to a
// temporary file in the destination directory, which is renamed over the
// destination only when complete, so a failure never leaves a partial file.
// Every tool reads its inputs through readInputFile, which refuses what could
// never end or would not fit (a device such as /dev/zero, a FIFO, a file
// beyond the size limit) before reading a byte.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_FILEIO_H
#define SNOW_SUPPORT_FILEIO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorOr.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace snow {

/// The largest input file a tool reads: 4 GiB (VGG-16's prog.bin is 0.28 GB),
/// or SNOW_MAX_INPUT_MB megabytes where that environment variable is set.
uint64_t maxInputBytes();

/// Reads an input file: a regular file no larger than maxInputBytes(). The
/// error's message() completes "cannot read 'PATH': ..." and says which rule
/// the file broke. IsText as for llvm::MemoryBuffer::getFile.
llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> readInputFile(const std::string &Path,
                                                                 bool IsText = false);

/// An input file opened under readInputFile's rules: its bytes (mapped when
/// large), and its descriptor, kept open so that the same file can also be
/// read a chunk at a time. Reading through a fresh mapping costs a page fault
/// or a shadow-page-table fill on the first touch of every 4 KiB; a pass that
/// only streams the bytes (a checksum) is twice as fast through read calls
/// into one small buffer (ResNet-50's 53 MB prog.bin: 15 ms mapped, 7.5 ms
/// read, on this project's VM).
class InputFile {
public:
  static llvm::ErrorOr<InputFile> open(const std::string &Path, bool IsText = false);
  InputFile(InputFile &&Other);
  InputFile &operator=(InputFile &&) = delete;
  ~InputFile();

  llvm::StringRef bytes() const { return Buf->getBuffer(); }
  std::unique_ptr<llvm::MemoryBuffer> takeBuffer() { return std::move(Buf); }
  /// Hands bytes [0, Len) of the file to Each in consecutive chunks, read
  /// through the descriptor. A file that shrank since it was opened ends the
  /// chunks early; a failed read is the error returned.
  std::error_code readChunks(uint64_t Len,
                             llvm::function_ref<void(llvm::ArrayRef<uint8_t>)> Each) const;

private:
  InputFile(std::unique_ptr<llvm::MemoryBuffer> Buf, int Fd) : Buf(std::move(Buf)), Fd(Fd) {}
  std::unique_ptr<llvm::MemoryBuffer> Buf;
  int Fd; ///< -1 once moved from.
};

/// Writes Bytes to Path atomically; "-" writes to stdout.
llvm::Error writeFileAtomic(const std::string &Path, llvm::StringRef Bytes);

/// Writes the concatenation of Parts to Path atomically, without joining
/// them in memory first (a prog.bin's weight image is hundreds of MB).
llvm::Error writeFileAtomic(const std::string &Path, llvm::ArrayRef<llvm::StringRef> Parts);

/// Writes a file produced piece by piece, atomically as above, without
/// holding it whole (a prog.bin's weight image is hundreds of MB): Produce
/// hands each consecutive piece to the writer it is given, which fails when
/// the write does (a full disk, a file-size limit); Produce then returns that
/// error at once. Any error, Produce's own included, leaves no output and no
/// temporary. "-" writes the pieces to stdout.
using PieceWriter = llvm::function_ref<llvm::Error(llvm::ArrayRef<uint8_t> Piece)>;
llvm::Error writeFileAtomic(const std::string &Path,
                            llvm::function_ref<llvm::Error(PieceWriter Write)> Produce);

/// Writes several outputs of one run all or nothing: each goes to a temporary
/// file first, and only when every one was written are they renamed into
/// place. A failure leaves every destination as it was.
llvm::Error writeFilesAtomic(const std::vector<std::pair<std::string, std::string>> &Files);

} // namespace snow

#endif
