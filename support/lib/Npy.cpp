//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//
//
// Users hand us inputs and weights as .npy files written by NumPy or PyTorch,
// and we hand outputs back the same way, so this is the one place that knows
// the format. The reader is strict on purpose: a float64 or Fortran-order
// array silently reinterpreted as float32 would turn into wrong numbers far
// downstream, so anything outside "C-order little-endian float32 or int16" is
// an error that names the file and what was found. Bytes are decoded
// explicitly (not memcpy'd) so the code does not depend on the host's byte
// order. The writer produces version 1.0 files and replaces the target
// atomically, so a crash never leaves a half-written tensor behind.
//
//===----------------------------------------------------------------------===//

#include "snow/support/Npy.h"
#include "snow/support/FileIO.h"
#include <cmath>

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <bit>
#include <fmt/format.h>
#include <limits>

using namespace snow;

namespace {

constexpr char Magic[] = "\x93NUMPY";
constexpr size_t MagicLen = 6;
/// Data starts at a multiple of this (what NumPy itself writes).
constexpr size_t Alignment = 64;

llvm::Error fail(const std::string &Path, const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s", Path.c_str(),
                                 Msg.c_str());
}

std::string shapeStr(const std::vector<uint64_t> &Shape) {
  // Python's tuple repr, so messages and headers read like NumPy's own.
  if (Shape.size() == 1)
    return fmt::format("({},)", Shape[0]);
  return fmt::format("({})", fmt::join(Shape, ", "));
}

/// A cursor over the header text, which is a Python dict literal such as
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
/// We accept exactly what NumPy writes: string keys, one string, one bool and
/// one tuple of non-negative integers, in any order, with optional trailing
/// commas. Anything else is reported rather than guessed at.
class HeaderParser {
public:
  explicit HeaderParser(llvm::StringRef Text) : Text(Text) {}

  llvm::Error parse(const std::string &Path, std::string &Descr, bool &Fortran,
                    std::vector<uint64_t> &Shape) {
    bool HaveDescr = false, HaveFortran = false, HaveShape = false;
    if (!consume('{'))
      return fail(Path, "header is not a dict: '" + Text.str() + "'");
    while (!consume('}')) {
      std::string Key;
      if (!parseString(Key) || !consume(':'))
        return fail(Path, "malformed header: '" + Text.str() + "'");
      if (Key == "descr") {
        if (!parseString(Descr))
          return fail(Path, "header 'descr' is not a simple dtype string (structured arrays "
                            "are not supported)");
        HaveDescr = true;
      } else if (Key == "fortran_order") {
        if (!parseBool(Fortran))
          return fail(Path, "header 'fortran_order' is not True or False");
        HaveFortran = true;
      } else if (Key == "shape") {
        if (!parseShape(Shape))
          return fail(Path, "header 'shape' is not a tuple of non-negative integers");
        HaveShape = true;
      } else {
        return fail(Path, "unexpected header key '" + Key + "'");
      }
      // A comma separates entries; the closing brace may follow directly.
      if (!consume(',') && !peek('}'))
        return fail(Path, "malformed header: '" + Text.str() + "'");
    }
    skipSpace();
    if (!Text.empty())
      return fail(Path, "trailing characters after the header dict: '" + Text.str() + "'");
    if (!HaveDescr || !HaveFortran || !HaveShape)
      return fail(Path, "header lacks one of 'descr', 'fortran_order', 'shape'");
    return llvm::Error::success();
  }

private:
  llvm::StringRef Text;

  void skipSpace() { Text = Text.ltrim(" \t\r\n"); }
  bool peek(char C) {
    skipSpace();
    return !Text.empty() && Text.front() == C;
  }
  bool consume(char C) {
    if (!peek(C))
      return false;
    Text = Text.drop_front();
    return true;
  }
  bool parseString(std::string &Out) {
    skipSpace();
    if (Text.empty() || (Text.front() != '\'' && Text.front() != '"'))
      return false;
    char Quote = Text.front();
    size_t End = Text.find(Quote, 1);
    if (End == llvm::StringRef::npos)
      return false;
    Out = Text.slice(1, End).str();
    Text = Text.drop_front(End + 1);
    return true;
  }
  bool parseBool(bool &Out) {
    skipSpace();
    if (Text.consume_front("True"))
      Out = true;
    else if (Text.consume_front("False"))
      Out = false;
    else
      return false;
    return true;
  }
  bool parseShape(std::vector<uint64_t> &Out) {
    Out.clear();
    if (!consume('('))
      return false;
    while (!consume(')')) {
      skipSpace();
      size_t Len = Text.find_first_not_of("0123456789");
      if (Len == 0 || Len == llvm::StringRef::npos)
        return false;
      uint64_t V;
      if (Text.take_front(Len).getAsInteger(10, V))
        return false;
      Out.push_back(V);
      Text = Text.drop_front(Len);
      if (!consume(',') && !peek(')'))
        return false;
    }
    return true;
  }
};

uint32_t readLE(const unsigned char *P, unsigned Bytes) {
  uint32_t V = 0;
  for (unsigned I = 0; I < Bytes; ++I)
    V |= uint32_t(P[I]) << (8 * I);
  return V;
}

} // namespace

uint64_t NpyArray::elems() const {
  uint64_t N = 1;
  for (uint64_t D : Shape)
    N *= D;
  return N;
}

llvm::Expected<NpyArray> snow::readNpy(const std::string &Path) {
  auto BufOrErr = snow::readInputFile(Path, /*IsText=*/false);
  if (!BufOrErr)
    return fail(Path, "cannot read: " + BufOrErr.getError().message());
  llvm::StringRef Bytes = (*BufOrErr)->getBuffer();
  const auto *U = reinterpret_cast<const unsigned char *>(Bytes.data());

  if (Bytes.size() < MagicLen + 2 || !Bytes.startswith(llvm::StringRef(Magic, MagicLen)))
    return fail(Path, "not a .npy file (its first 6 bytes are not the magic \\x93NUMPY)");
  unsigned Major = U[MagicLen], Minor = U[MagicLen + 1];
  if (Major < 1 || Major > 3)
    return fail(Path, fmt::format("unsupported .npy version {}.{}", Major, Minor));
  // Version 1.0 has a 16-bit header length, 2.0 and 3.0 a 32-bit one (3.0
  // only changes the header encoding to UTF-8, which our ASCII parse covers).
  unsigned LenBytes = Major == 1 ? 2 : 4;
  size_t Prefix = MagicLen + 2 + LenBytes;
  if (Bytes.size() < Prefix)
    return fail(Path, "truncated header");
  uint64_t HeaderLen = readLE(U + MagicLen + 2, LenBytes);
  if (Bytes.size() - Prefix < HeaderLen)
    return fail(Path, fmt::format("truncated header: it claims {} bytes, the file has {}",
                                  HeaderLen, Bytes.size() - Prefix));

  std::string Descr;
  bool Fortran = false;
  NpyArray A;
  HeaderParser P(Bytes.substr(Prefix, HeaderLen));
  if (llvm::Error E = P.parse(Path, Descr, Fortran, A.Shape))
    return E;

  unsigned ItemSize;
  if (Descr == "<f4") {
    A.Type = NpyArray::DType::F32;
    ItemSize = 4;
  } else if (Descr == "<i2") {
    A.Type = NpyArray::DType::I16;
    ItemSize = 2;
  } else if (Descr == ">f4" || Descr == ">i2") {
    return fail(Path, "dtype '" + Descr +
                          "' is big-endian (use little-endian float32 '<f4' or int16 '<i2')");
  } else {
    return fail(Path, "dtype '" + Descr + "' is not supported (use float32 or int16)");
  }
  if (Fortran)
    return fail(Path, "fortran_order is True; only C-order arrays are supported "
                      "(use numpy.ascontiguousarray)");

  uint64_t Elems = 1;
  for (uint64_t D : A.Shape) {
    if (D != 0 && Elems > std::numeric_limits<uint64_t>::max() / ItemSize / D)
      return fail(Path, "shape " + shapeStr(A.Shape) + " is too large");
    Elems *= D;
  }
  uint64_t Need = Elems * ItemSize;
  uint64_t Have = Bytes.size() - Prefix - HeaderLen;
  if (Have < Need)
    return fail(Path, fmt::format("data is truncated: shape {} of {} needs {} bytes, the file "
                                  "has {}",
                                  shapeStr(A.Shape), Descr, Need, Have));
  if (Have > Need)
    return fail(Path, fmt::format("header/shape mismatch: shape {} of {} needs {} bytes, but "
                                  "{} bytes follow the header",
                                  shapeStr(A.Shape), Descr, Need, Have));

  const unsigned char *Data = U + Prefix + HeaderLen;
  if (A.Type == NpyArray::DType::F32) {
    A.F32.resize(Elems);
    for (uint64_t I = 0; I < Elems; ++I)
      A.F32[I] = std::bit_cast<float>(readLE(Data + 4 * I, 4));
  } else {
    A.I16.resize(Elems);
    for (uint64_t I = 0; I < Elems; ++I)
      A.I16[I] = int16_t(uint16_t(readLE(Data + 2 * I, 2)));
  }
  return A;
}

llvm::Expected<std::string> snow::encodeNpy(const NpyArray &A, const std::string &Path) {
  bool IsF32 = A.Type == NpyArray::DType::F32;
  uint64_t Have = IsF32 ? A.F32.size() : A.I16.size();
  if (Have != A.elems())
    return fail(Path, fmt::format("cannot write: shape {} needs {} values, the array holds {}",
                                  shapeStr(A.Shape), A.elems(), Have));

  std::string Header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                   IsF32 ? "<f4" : "<i2", shapeStr(A.Shape));
  // Pad with spaces and a final newline so the data starts 64-byte aligned.
  size_t Prefix = MagicLen + 2 + 2;
  size_t Total = (Prefix + Header.size() + 1 + Alignment - 1) / Alignment * Alignment;
  Header.append(Total - Prefix - Header.size() - 1, ' ');
  Header.push_back('\n');
  if (Header.size() > 0xffff)
    return fail(Path, "cannot write: header too long for .npy version 1.0");

  std::string Out(Magic, MagicLen);
  Out.push_back(1);
  Out.push_back(0);
  Out.push_back(char(Header.size() & 0xff));
  Out.push_back(char(Header.size() >> 8));
  Out += Header;
  Out.reserve(Out.size() + Have * (IsF32 ? 4 : 2));
  auto PutLE = [&Out](uint32_t V, unsigned Bytes) {
    for (unsigned I = 0; I < Bytes; ++I)
      Out.push_back(char((V >> (8 * I)) & 0xff));
  };
  if (IsF32)
    for (float F : A.F32)
      PutLE(std::bit_cast<uint32_t>(F), 4);
  else
    for (int16_t V : A.I16)
      PutLE(uint16_t(V), 2);
  return Out;
}

llvm::Error snow::checkFinite(const NpyArray &A, const std::string &Path) {
  if (A.Type != NpyArray::DType::F32)
    return llvm::Error::success();
  for (size_t I = 0; I < A.F32.size(); ++I)
    if (!std::isfinite(A.F32[I]))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "input '%s': element %zu is '%s', not a finite number "
                                     "(NaN and infinity are refused; fix the preprocessing)",
                                     Path.c_str(), I,
                                     std::isnan(A.F32[I]) ? "nan"
                                     : A.F32[I] > 0       ? "inf"
                                                          : "-inf");
  return llvm::Error::success();
}

llvm::Error snow::writeNpy(const std::string &Path, const NpyArray &A) {
  auto Bytes = encodeNpy(A, Path);
  if (!Bytes)
    return Bytes.takeError();
  return writeFileAtomic(Path, *Bytes);
}
